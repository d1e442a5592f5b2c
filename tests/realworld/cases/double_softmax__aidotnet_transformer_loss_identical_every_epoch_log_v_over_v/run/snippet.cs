var architecture = new TransformerArchitecture<float>(
    inputType: InputType.TwoDimensional,
    taskType: NeuralNetworkTaskType.SequenceClassification,
    numEncoderLayers: 2,
    numDecoderLayers: 0,
    numHeads: 4,
    modelDimension: 32,
    feedForwardDimension: 64,
    inputSize: 4,
    outputSize: 512,
    maxSequenceLength: 4,
    vocabularySize: 512);
var transformer = new Transformer<float>(
    architecture,
    lossFunction: new CategoricalCrossEntropyLoss<float>());

transformer.SetTrainingMode(true);
for (int epoch = 0; epoch < 100; epoch++) {
    foreach (var (input, target) in trainBatch) {
        transformer.Train(input, target);       // target is one-hot [1, 512]
    }
    // transformer.GetLastLoss() returns 0.01218... every epoch
}
