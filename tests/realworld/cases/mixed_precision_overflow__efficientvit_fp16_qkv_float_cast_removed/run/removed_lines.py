        if qkv.dtype == torch.float16:
            qkv = qkv.float()
