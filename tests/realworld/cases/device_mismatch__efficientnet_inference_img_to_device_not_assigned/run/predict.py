device = torch.device('cuda:0')
tfms = transforms.Compose([transforms.Resize(224), transforms.ToTensor(), transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),])
img = tfms(Image.open('img.png')).unsqueeze(0)
img.to(device)
model.to(device)
model.eval()
with torch.no_grad():
    outputs = model(img)
