img = Image.open(img_path).convert("RGB")
img = self.tfs(img)
