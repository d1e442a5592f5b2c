        for param in filter(lambda p: p.requires_grad,model.parameters()):
            param.data = param.data.to(torch.float32)
