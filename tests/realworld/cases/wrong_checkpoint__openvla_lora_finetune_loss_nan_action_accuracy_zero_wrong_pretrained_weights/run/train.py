            if distributed_state.is_main_process:
                print("action_logits: ", action_logits.size())
                print("action_preds: ", action_preds.size(), action_preds[0])
                print("action_gt: ", action_gt.size(), action_gt[0])
                print("mask: ", mask.size(), mask[0])
                print("correct_preds: ", correct_preds)
                print("action_accuracy: ", action_accuracy)
                print("train_loss: ", smoothened_loss)
                print("l1_loss: ", smoothened_l1_loss)
