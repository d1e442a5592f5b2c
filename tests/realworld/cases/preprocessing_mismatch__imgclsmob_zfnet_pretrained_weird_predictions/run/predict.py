imagenet_mean = np.array([104., 117., 124.], dtype=np.float32)
fig2 = plt.figure(figsize=(30,10))

for i, image in enumerate(imgs):
    img = cv2.resize(image.astype(np.float32), (224, 224))
    img -= imagenet_mean
    img = img.reshape((1, 3, 224, 224))
    img = torch.from_numpy(img)
    
    probs = torch.nn.Softmax(dim=-1)(net(img))
    probs = probs.detach().numpy()
