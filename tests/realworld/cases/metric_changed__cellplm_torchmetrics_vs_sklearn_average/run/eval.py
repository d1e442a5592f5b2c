    acc= accuracy_score(pred_labels.detach().cpu().numpy(),true_labels.detach().cpu().numpy())
    f1= f1_score(pred_labels.detach().cpu().numpy(),true_labels.detach().cpu().numpy(),average="macro")
    precision= precision_score(pred_labels.detach().cpu().numpy(),true_labels.detach().cpu().numpy(),average="macro")
    recall= recall_score(pred_labels.detach().cpu().numpy(),true_labels.cpu().detach().numpy(),average="macro")
