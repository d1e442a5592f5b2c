from transformers import AutoTokenizer, AutoModel
import json
from sklearn.metrics import f1_score,precision_score,recall_score,accuracy_score,roc_auc_score
from tqdm import tqdm
import torch
from transformers import pipeline

from transformers import AutoModelForSequenceClassification

with open(data_path,'r') as f:
    datas= json.load(f)

toxigen_hatebert = AutoModelForSequenceClassification.from_pretrained("pretrained_models/toxigen_hatebert")
tokenizer = AutoTokenizer.from_pretrained('pretrained_models/bert-base-cased')

# toxigen_hatebert = pipeline("text-classification",
#                             model="pretrained_models/toxigen_hatebert",
#                             tokenizer="pretrained_models/bert-base-cased")

predicts = []
trues = []
toxigen_hatebert.eval()
