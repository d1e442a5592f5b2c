    def set_lr(tmp_lr):
        for param_group in optimizer.param_groups:
            param_group['lr'] = tmp_lr / batch_size / subdivision

    if args.eval_interval == 1:
        ap50_95, ap50 = evaluator.evaluate(model)
        print('val/COCOAP50',ap50)
        print('val/COCOAP50_95',ap50_95)
        return
