# minimal stand-in for tensorboardX.SummaryWriter: records scalars to a jsonl file
import json, os
class SummaryWriter:
    def __init__(self, logdir=None, **kw):
        self._f = open(os.environ.get("TB_SHIM_OUT", "tb_scalars.jsonl"), "w")
    def add_scalar(self, tag, value, global_step=None, **kw):
        self._f.write(json.dumps({"tag": tag, "value": float(value), "step": global_step}) + "\n")
    def flush(self): self._f.flush()
    def close(self): self._f.close()
