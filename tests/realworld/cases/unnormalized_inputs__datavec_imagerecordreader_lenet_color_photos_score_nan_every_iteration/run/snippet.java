    ImageRecordReader recordReader = new ImageRecordReader(100,100,nChannels,labelMaker);  
    recordReader.initialize(trainData);
    DataSetIterator trainIter = new RecordReaderDataSetIterator(recordReader, batchSize, 1, outputNum); 

model.fit(trainIter);
