def load_model(self):
        #print("esults/HandManipulateBlockRotateZ_her_(-)rew_asym-max_emb16_lr0.001_sd100.pt")
        sd = torch.load( os.path.join(self.args.save_dir, f"{self.args.experiment_name}.pt"))
        self.actor.load_state_dict(sd["actor"])
        if hasattr(self, "critic"):
            self.critic.load_state_dict(sd["critic"])
        self.actor.eval()
        return
