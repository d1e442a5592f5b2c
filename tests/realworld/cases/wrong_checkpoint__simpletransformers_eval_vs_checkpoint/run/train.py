from simpletransformers.classification import ClassificationModel
from sklearn.metrics import  accuracy_score

# Load your data here: train_df and test_df

# Define model

train_args ={"num_train_epochs": 10}
model = ClassificationModel("bert", "bert-base-german-cased", num_labels=2,args=train_args,use_cuda=True)
model.train_model(train_df = train_df)

# evaluate trained model
result, model_outputs, wrong_predictions = model.eval_model(test_df, acc=accuracy_score)
print(result)

# Load model from checkpoint
model = ClassificationModel("bert", "outputs/... load model after checkpoint 10", num_labels=2,args=train_args,use_cuda=True)
result, model_outputs, wrong_predictions = model.eval_model(test_df, acc=accuracy_score)
print(result)
