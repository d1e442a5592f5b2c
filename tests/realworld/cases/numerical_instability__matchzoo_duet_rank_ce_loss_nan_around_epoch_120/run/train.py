import matchzoo as mz
train_pack = mz.datasets.wiki_qa.load_data('train', task='ranking')
task = mz.tasks.Ranking(loss=mz.losses.RankCrossEntropyLoss(num_neg=2))
embedding = mz.datasets.embeddings.load_glove_embedding(dimension=300)

model, preprocessor, data_generator_builder, embedding_matrix = mz.auto.prepare(
                    task=task,
                    model_class=mz.models.duet.DUET,
                    data_pack=train_pack,
                    embedding
