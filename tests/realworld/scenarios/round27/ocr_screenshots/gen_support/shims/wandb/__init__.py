# minimal stand-in for wandb: records wandb.log() calls to a jsonl file
import json, os, sys
_f = None
_hist = []
config = {}
def init(project=None, name=None, config=None, **kw):
    global _f
    _f = open(os.environ.get("WANDB_SHIM_OUT", "wandb_history.jsonl"), "w")
    print("wandb: Currently logged in as: %s. Use `wandb login --relogin` to force relogin" % os.environ.get("WANDB_SHIM_USER", "user"), file=sys.stderr)
    print("wandb: Tracking run with wandb version 0.17.4", file=sys.stderr)
    print("wandb: Run data is saved locally in ./wandb/run-%s" % os.environ.get("WANDB_SHIM_RUNID", "run"), file=sys.stderr)
    print("wandb: Syncing run %s" % (name or "run"), file=sys.stderr)
    print("wandb: View project at https://wandb.ai/%s/%s" % (os.environ.get("WANDB_SHIM_USER", "user"), project), file=sys.stderr)
    sys.stderr.flush()
    return None
def log(d, step=None, **kw):
    rec = dict(d); rec["_step"] = step
    _f.write(json.dumps(rec) + "\n"); _f.flush()
def finish():
    if _f: _f.close()
    print("wandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 0 other file(s)", file=sys.stderr)
