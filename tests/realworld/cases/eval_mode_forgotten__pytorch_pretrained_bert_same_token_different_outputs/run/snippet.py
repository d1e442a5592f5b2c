from pytorch_pretrained_bert import BertTokenizer, BertModel, BertForMaskedLM 
model = BertModel.from_pretrained('bert-base-uncased')
x=torch.LongTensor([[6541]])
y0=model(x)[0]
y1=model(x)[0]
