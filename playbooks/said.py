"""What the user says they already tried, and that it did not help: evidence against a cause
(and a learning rate or batch size they name that is extreme, a loss they say never leaves 0 or ln K, or a run
that works in fp32: evidence for a cause).

"Lowering the learning rate does not help", "still NaN in fp32", "clipping didn't change anything",
"I do call zero_grad()": a practitioner reading a post rules those causes down at once. Each
pattern below turns such a sentence into a `said:*` feature of strength 1; the playbooks weigh it
against the cause (negative weights only: the user's words never make a cause a finding), and the
weight fit (scripts/fit_weights.py) may adjust it like any other feature.

Around a NaN, and for a loss that falls while the score stays, the words may also carry a kind the run itself
would show (code:unsafe_log, grad_growth, accuracy_stuck_loss_falls): those Signals are marked data "narrated", weigh
the causes as the run's reading would, meet no requirement, and give way to the run's own reading of the kind.

In: the user's symptom sentences (debug.md's "what happened" and "what I've tried" included).
Out: `ruled_out(symptoms)` -> {kind: Signal}. The Signals carry no evidence: they lower causes and
are never cited as support.
"""
from __future__ import annotations

import math
import re

from mltdbg.analyzers.curves import ADAM_LR_HIGH, FINETUNE_LR_HIGH, implied_classes
from mltdbg.analyzers.model import Signal
from mltdbg.analyzers.prose import HEDGE_CUE
from mltdbg.playbooks.library import undenied

# "did not help" in its usual spellings, and "same"/"still" results.
_NO_HELP = (r"(?:(?:does|did|do|has|have|had|is|was)\s*(?:n'?t|not)|never|nothing|won'?t|cannot|can'?t|no)\s*"
            r"(?:help|work|change|fix|solve|improve|avoid|prevent|resolve|eliminate|make\s+(?:a|any)\s+difference)\w*"
            r"|\bsame\b|\bstill\b|\bremain(?:s|ed|ing)?\b|no\s+(?:change|difference|luck|effect|improvement)|without\s+(?:success|luck)"
            r"|也不行|没有用|没用|无效|不行|没有效果|(?:并)?没(?:有)?(?:能够?)?(?:避免|解决|改善)")
_NEAR = r"[^.;!?\n]{0,80}?"
# ... the same gap, not across words that say the change worked ("a different lr, and now it trains fine, but ...")
_NEAR_UNSOLVED = r"(?:(?!\b(?:now|fixed|solved|works?|worked|trains?\s+fine)\b)[^.;!?\n]){0,80}?"
# The same said before the attempt: "it doesn't matter if I reduce the lr", "even with a smaller lr".
_NO_HELP_BEFORE = (r"(?:does|did|do)\s*(?:n'?t|not)\s+matter\s+(?:if|whether|how|when)|no\s+matter\s+(?:if|whether|how)"
                   r"|\beven\s+(?:if|when|after|with|though)")
_LOWER = r"(?:lower|reduc|decreas|smaller|halv|small|tin)\w*"
# One character of a clause that names no other activation and denies nothing (said:relu_output's gaps).
_PLAIN_GAP = r"(?:(?!softmax|sigmoid|tanh|linear\b|hidden|else|other|\bnot\b|n't|\bno\b|without|\band\b|\bbut\b)[^,.;!?\n])"

# said:serving_gap's words: where a model was scored offline, where it is served, a score, a comparison
_OFFLINE = (r"offline|validation|val|notebook|locally|training|batch\s+(?:script|scoring)|export\w*|test\s+set|pytorch"
            r"|original\s+model")
_SERVING = (r"\bproduction\b|\bprod\b|\bdeploy\w*|\bserving\b|\bserved\b|torchserve|triton\s+(?:inference\s+)?server"
            r"|onnx\s?runtime|tflite|tensorrt|coreml|inference\s+server")
# ... and a separate prediction / inference script, a serving side only where a score's value follows it ("when I run
# my predict script on new reviews I get ~0.5", "... gives 40%"; not "predict.py raises FileNotFoundError")
_SCRIPT = r"\b(?:predict(?:ion)?|inference)\s+script|\bpredict\w*\.py\b|\binfer\w*\.py\b"
_SCORES = r"acc\w*|f1|auc|precision|recall|score|predictions?|outputs?|results?|error"
_VERSUS = r"than|vs\.?|versus|compared\s+(?:to|with)"
# a character of one clause: no clause end, but the point of a number ("0.88") is none
_CLAUSE_GAP = r"(?:[^.;!?\n。；]|\.(?=\d))"
# ... and a denial on the serving verb itself ("I have not deployed anything yet")
_SERVING_DENIED = re.compile(r"(?:\b(?:not|never)|n't)\s+(?:yet\s+|been\s+|even\s+)?(?:deploy|serv)\w*\W*$", re.I)


_PATTERNS: dict[str, tuple[str, str]] = {
    # kind: (regex, what the user ruled out)
    "said:lower_lr_no_help": (
        rf"(?:lower|reduc|decreas|smaller|halv|small|tin)\w*\s+(?:the\s+|my\s+)?(?:learning[\s_-]?rate|lr)\b{_NEAR}(?:{_NO_HELP})"
        rf"|(?:learning[\s_-]?rate|\blr\b){_NEAR}(?:lower|reduc|decreas|smaller|halv)\w*{_NEAR}(?:{_NO_HELP})"
        rf"|(?:{_NO_HELP_BEFORE}){_NEAR}{_LOWER}\s+(?:\w+\s+)?(?:learning[\s_-]?rate|lr)\b"
        rf"|(?:{_NO_HELP_BEFORE}){_NEAR}(?:learning[\s_-]?rate|\blr\b){_NEAR}{_LOWER}"
        # "changing the learning rate did not help", "tried different lrs, still nan": the lr was moved
        # (either way) and the failure stayed
        rf"|(?:chang|adjust|tun|vary|varied|modif|tweak)\w*\s+(?:\w+\s+){{0,3}}(?:learning[\s_-]?rates?|\blrs?\b){_NEAR}(?:{_NO_HELP})"
        rf"|tr(?:y|ied|ying)\s+(?:[^.;!?\n]{{0,40}}?\b(?:and|or|,)\s+)?(?:an?\s+)?(?:different|other|various|several|many|a\s+few|multiple)\s+(?:\w+\s+){{0,2}}"
        rf"(?:learning[\s_-]?rates?|\blrs?\b){_NEAR_UNSOLVED}(?:{_NO_HELP})"
        # "no matter how I adjust the lr": every lr tried, the failure stayed
        r"|no\s+matter\s+how\s+(?:i\s+|we\s+)?(?:adjust|chang|tun|set|modif|tweak)\w*\s+(?:the\s+|my\s+)?(?:learning[\s_-]?rate|lr)\b"
        # the same in Chinese posts: lowered (调小/减小/降低/调低) the learning rate ... no use / did not avoid it
        rf"|(?:调小|减小|降低|调低|减少)了?学习率[^。；！？\n]{{0,40}}?(?:{_NO_HELP})",
        "a lower learning rate did not help"),
    # every learning rate tried failed the same way ("whatever lr or size I try", "no matter what learning rate I use",
    # "regardless of the lr"): the lr is no cause either way, too high or too low
    "said:any_lr_no_help": (
        r"(?:\bwhatever|\bno\s+matter\s+(?:what|which)|\bregardless\s+of(?:\s+the)?|\b(?:any|every)(?=\s+(?:\w+\s+){0,3}?"
        r"(?:learning[\s_-]?rates?|lrs?)\s+(?:\w+\s+)?(?:i|we)\s+(?:try|tried|use|used|set|pick)))"
        r"\s+(?:\w+\s+){0,3}?(?:learning[\s_-]?rates?|\blrs?\b)(?!\s*(?:schedul|warm|decay|find))",
        "every learning rate tried fails the same way"),
    "said:fp32_no_help": (
        rf"(?:fp32|float32|full\s+precision|(?:disabl|turn\w*\s+off|remov|without)\w*\s+(?:the\s+)?(?:amp|fp16|mixed\s+precision|autocast)){_NEAR}(?:{_NO_HELP})",
        "the failure stays in fp32 / without AMP"),
    # the other way round, and evidence FOR a cause: the same run is fine in fp32 / without AMP
    # (weighed by the playbooks like said:lr_huge)
    "said:fp32_works": (
        r"(?:works?|working|worked|fine|ok(?:ay)?|trains?\s+(?:fine|well|normally)|no\s+(?:nan|problem|issue)s?|converges?)"
        r"\s+(?:\w+\s+){0,2}(?:with|in|using|under|on|at)\s+(?:the\s+)?(?:fp32|float32|32[\s-]?bits?\b|full\s+precision"
        r"|single\s+precision|precision\s*=\s*[\"']?32|32\b(?![\s-]*(?:gpus?|workers?|cores?|nodes?|samples?|images?|batch|steps?"
        r"|epochs?|threads?|cards?|devices?|processes|ranks?|x|k\b)))"
        r"|(?:fp32|float32|full\s+precision|precision\s*=\s*[\"']?32|(?:disabl\w*|turn\w*\s+off|remov\w*|without)\s+(?:the\s+)?"
        r"(?:amp|fp16|mixed\s+precision|autocast|half\s+precision))[^.;!?\n]{0,30}?\b(?:works?|worked|is\s+fine|trains?\s+fine"
        r"|no\s+(?:nan|problem|issue)s?|goes\s+away|disappears?|fixe[sd]\s+it|solve[sd]\s+it)"
        r"|only\s+(?:happens\s+)?(?:with|in|when\s+using|under)\s+(?:fp16|amp|mixed\s+precision|half\s+precision|precision\s*=\s*16)"
        # ... in the other languages posts come in: "precision=32 にすると普通に学習でき", "fp32 就正常了", "con fp32 funciona",
        # "mit fp32 funktioniert es", "в fp32 всё работает", "en fp32 ça marche"
        r"|(?:fp32|float32|precision\s*=\s*[\"']?32|32\s*bit)[^.;!?\n。！？]{0,24}?(?:普通に|問題なく|学習でき|正常|没(?:有)?问题|可以|"
        r"funciona|funktioniert|klappt|работает|нормально|marche|fonctionne)",
        "the same run works in fp32 / without AMP"),
    # ... and the same for the learning rate: the run trains at a smaller lr and fails at the larger one ("trains fine at
    # learning rate 1e-4, but at 0.01 it fails", "with a lower lr it converges", "reducing the lr fixed it")
    "said:smaller_lr_works": (
        r"\b(?:works?|worked|fine|ok(?:ay)?|trains?\s+(?:fine|well|normally|ok)|converges?|no\s+(?:nan|problem|issue)s?)"
        r"\s+(?:\w+\s+){0,2}?(?:with|at|using|on|for)\s+(?:an?\s+|the\s+)?(?:(?:lower|smaller|reduced|tiny|small)\s+"
        r"(?:learning[\s_-]?rates?|lrs?)\b|(?:learning[\s_-]?rates?|lrs?)\s*(?:=|of|at)?\s*\d*\.?\d+(?:e-\d+)?[^.;!?\n]{0,40}?"
        r"\bbut\s+(?:\w+\s+){0,3}?(?:at|with|using|for)\s+(?:(?:an?\s+)?(?:learning[\s_-]?rates?|lrs?)\s*(?:=|of)?\s*)?\d)"
        r"|(?:with|at|using)\s+(?:an?\s+|the\s+)?(?:lower|smaller|reduced|small|low|tiny)\s+(?:learning[\s_-]?rates?|lrs?)\b,?\s+"
        r"(?:it\s+|the\s+\w+\s+|training\s+)?(?:works?|trains?|converges?|is\s+fine|runs?\s+fine|goes\s+away|disappears?)"
        r"|(?:(?:reduc|lower|decreas|halv)\w*\s+(?:the\s+|my\s+)?|tr(?:y|ied)\s+an?\s+(?:low|lower|small|smaller)\s+)"
        r"(?:learning[\s_-]?rate|lr)\b(?:(?!\bnot\b|n't|\bnever\b|\bno\b|\bstill\b|\bnothing\b|\bneither\b)[^.;!?\n]){0,30}?"
        r"\b(?:fixe[sd]|solve[sd]|helps|helped|works|worked|trains|converges|made\s+it\s+(?:work|converge|train))\b",
        "the run trains at a smaller learning rate"),
    # the loss (or the weights, the values) grows before it turns NaN ("the cost keeps reducing, then begins climbing until
    # nan appears", "weights growing larger and larger until they become NaN", "values around -1e19 before the NaN"):
    # an update too large for the model, not a bad value in the data nor one op's edge case
    "said:grows_to_nan": (
        r"(?<!\bi\s)(?<!\bwe\s)\b(?:climb|increas|ris|grow|go(?:es|ing)?\s+up|goes\s+up|explod|diverg|blow\w*\s+up|larger\s+and\s+"
        r"larger|bigger\s+and\s+bigger)\w*\s+(?:\w+\s+){0,4}?(?:until|till|to|into|and\s+then|then|before)\s+(?:it\s+|they\s+)?(?:becomes?\s+|become\s+|"
        r"gets?\s+|turns?\s+(?:into\s+)?|hits?\s+|reach\w*\s+|is\s+|are\s+)?(?:a\s+)?(?:nan|inf\b|infinity|infinite)"
        r"|\b\d(?:\.\d+)?e\+?(?:1\d|[2-9]\d)\b[^.;!?\n]{0,40}?\b(?:before|then|and\s+then|until)\b[^.;!?\n]{0,20}?\b(?:nan|inf)\b",
        "the values grow before they turn NaN"),
    "said:fp16": (
        # the user says the run trains in half precision ("with --half (amp)", "model = model.half()",
        # "fp16 training", "AMP"): what config:fp16 says in a config; "without amp" / "no fp16" is denied
        r"(?<![\w-])(?:fp16|float16|amp|apex|mixed[\s_-]precision|half[\s_-]precision|--half|--fp16|autocast|gradscaler)\b"
        r"(?!\s*[=:]\s*[\"']?(?:False|false|0|no|off|none|None)\b)"     # ("fp16=False": off, said so)
        r"|\.half\(\)|\bprecision\s*=\s*[\"']?16\b|torch\.float16\b|混合精度|半精度",
        "the run trains in half precision (fp16 / AMP)"),
    "said:clip_no_help": (
        rf"(?:clip\w*|clip_grad_norm_?){_NEAR}(?:{_NO_HELP})",
        "gradient clipping did not help"),
    "said:oom_worked_around": (
        r"(?:ran|run|running|runs)\s+out\s+of\s+(?:gpu\s+|cuda\s+|host\s+)?memory\W{0,3}\s*(?:so|then|and\s+then|therefore)\s+(?:i|we)\b"
        r"|\b(?:to\s+avoid|because\s+of|due\s+to|after)\s+(?:the\s+|an?\s+)?(?:oom|out[\s-]+of[\s-]+memory)\b[^.;!?\n]{0,40}?\b(?:i|we)\s+(?:use|used|switch|reduc|lower|set|chang)"
        # "I was getting a CUDA out of memory issue, so I made the following change", "it now fits on my gpu"
        r"|\b(?:getting|got|get|had|hit|hitting|having)\s+(?:an?\s+|the\s+)?(?:cuda\s+|gpu\s+)?(?:oom|out[\s-]+of[\s-]+memory)"
        r"(?:\s+(?:issue|error|problem|exception)s?)?\W{0,3}\s*(?:so|then|therefore)\s+(?:i|we)\b"
        r"|\b(?:it|model)\s+now\s+fits\b|\bnow\s+(?:it|the\s+model)\s+fits\b",
        "the out-of-memory error was worked around and is not the failure asked about"),
    "said:relu_output": (
        # the user says a ReLU sits on the model's output ("relu on the output layer", "changed the final
        # layer's activation from linear to relu", "ReLU after the fc8 logits"); not a leaky one, not "relu in
        # the hidden layers and softmax on the output", not "the output layer does not use relu"
        rf"(?<!leaky\s)(?<!leaky_)\brelu\b{_PLAIN_GAP}{{0,40}}?\b(?:on|at|after|to|for|as|in)\s+(?:the\s+|my\s+)?"
        r"(?:output|final|last|top)\s*(?:layer|activation|node|unit|neuron)s?\b"
        r"|\brelu\s+(?:on|after|to)\s+(?:the\s+)?(?:logits|fc8|outputs?)\b"
        r"|\b(?:output|final|last)\s+(?:\w+\s+){0,3}(?:layer|activation)s?\b[^,.;!?\n]{0,50}?\bto\s+relu\b"
        rf"|\b(?:output|final|last)\s+(?:\w+\s+){{0,2}}(?:layer|activation|node)s?\b{_PLAIN_GAP}{{0,50}}?(?<!leaky\s)(?<!leaky_)"
        r"\brelu\b(?!\s+(?:everywhere|elsewhere|in\s+the\s+hidden|for\s+the\s+hidden|otherwise))",
        "the model's output goes through a ReLU"),
    "said:val_better_than_train": (
        # validation scoring better than training ("val accuracy is higher than train accuracy", "val loss
        # lower than the training loss"): whatever it is (dropout and augmentation on the training pass
        # only, or leaked validation data), it is not overfitting
        r"\b(?:val\w*|validation|test|dev)\s+(?:set\s+)?(?:acc\w*|score|f1|auc|map|dice|iou)\s+(?:\w+\s+){0,3}"
        r"(?:higher|better|greater|above)\s+than\s+(?:the\s+|my\s+)?train"
        r"|\b(?:val\w*|validation|test|dev)\s+(?:set\s+)?loss\s+(?:\w+\s+){0,3}(?:lower|smaller|less|below)\s+than\s+"
        r"(?:the\s+|my\s+)?train"
        r"|\btrain\w*\s+(?:set\s+)?(?:acc\w*|score)\s+(?:\w+\s+){0,3}(?:lower|worse|below)\s+than\s+(?:the\s+|my\s+)?"
        r"(?:val|validation|test)",
        "validation scores better than training"),
    "said:weights_not_loaded": (
        # the user says the trained / pretrained weights did not load ("I don't load the pretrain model",
        # "the checkpoint was never loaded", "returns a randomly initialized model", 没有加载预训练权重): what was
        # evaluated or trained on is not the weights meant. Not "I train from randomly initialized weights" (a
        # from-scratch run), nor transformers' "newly initialized" head of a fine-tune's start.
        r"\b(?:weights?|checkpoints?|ckpt|pre-?trained\s+(?:model|weights?|backbone)|pretrain(?:ed)?\s+model|state[_\s]dict"
        r"|parameters)\b[^.;!?\n]{0,30}?(?:\bnot|\bnever|n't)\s+(?:been\s+|being\s+|be\s+|get\s+|got\s+|properly\s+|correctly\s+)?"
        r"(?:loaded|restored)\b"
        r"|\b(?:don'?t|didn'?t|did\s+not|do\s+not|does\s+not|doesn'?t|never)\s+load\w*\s+(?:the\s+|my\s+|any\s+|its\s+)?"
        r"(?:pre-?trained|pretrain|saved|trained)\s*(?:model|weights?|checkpoints?|ckpt|parameters)\b"
        r"|\b(?:were|was|are|is|been|being|gets?|got)\s+(?:\w+\s+)?randomly\s+initiali[sz]ed"
        r"|\breturns?\s+an?\s+randomly\s+initiali[sz]ed\b|\bwarn\w*[^.;!?\n]{0,80}?\brandomly\s+initiali[sz]ed"
        r"|(?:没有?|未)(?:能)?加载(?:预训练|pretrain|权重|模型)|(?:预训练|权重|模型)[^。；！？\n]{0,10}?(?:没有?|未)(?:被)?加载",
        "the weights meant were not loaded"),
    "said:data_nonfinite": (
        # the user says the data itself holds NaN / missing values ("some columns have missing values", "there
        # are NaNs in my input features", "the csv contains nulls"); denied ("no NaNs in the data"): said:data_clean
        r"\b(?:missing|null|blank)\s+(?:values?|cells?|entries|fields?)\b|\b(?:empty|blank)\s+(?:cells?|entries|fields?)\b"
        r"|\b(?:nans?|nulls?|infs?)\s+(?:values?\s+)?(?:in|inside|within)\s+(?:my\s+|the\s+|our\s+|some\s+)?(?:\w+\s+)?"
        r"(?:data|dataset|features?|inputs?|csv|columns?|samples?|rows?|images?)\b"
        r"|\b(?:data|dataset|features?|inputs?|csv|columns?)\s+(?:has|have|had|contains?|contained|includes?)\s+"
        r"(?:some\s+|a\s+few\s+|many\s+)?(?:nans?|nulls?|infs?|missing)\b",
        "the data holds NaN / missing values"),
    # "even though the lr is only 1e-3", "the learning rate is already very small", "despite a tiny lr": the user
    # calls the lr small, as a concession (in the tune part five posts, none of them lr_too_high); not "with a
    # small lr it trains fine" (a contrast with a high lr that fails)
    "said:lr_called_small": (
        r"(?:learning[\s_-]?rate|\blr\b)\s+(?:is|was)\s+(?:(?:only|just|already|quite|very|really|pretty|so)"
        r"\s+){1,2}(?:small|low|tiny|\d[\d.]*e-\d+|0\.000\d*)"
        r"|\b(?:even\s+(?:with|though|at)|despite|although|already\s+(?:using|use|with|at))\s+(?:an?\s+|the\s+|my\s+)?"
        r"(?:very\s+|really\s+)?(?:small|low|tiny)\s+(?:learning[\s_-]?rate|\blr\b)",
        "the learning rate is small"),
    # the same model scoring well offline (validation, a notebook, a batch script) and badly where it is served
    # (production, a deployed service, TorchServe / Triton / ONNX Runtime): the serving path differs from the one
    # evaluated (preprocessing, eval mode, vocabulary, weights, the metric), not the training's fit
    "said:serving_gap": (
        rf"\b(?:{_OFFLINE})\b{_CLAUSE_GAP}{{0,120}}?\b(?:but|while|however|yet|whereas)\b{_CLAUSE_GAP}{{0,120}}?(?:{_SERVING}"
        rf"|(?:{_SCRIPT}){_CLAUSE_GAP}{{0,60}}?\b(?:{_SCORES}|get|gets|got|gives?|gave|scores?|reach\w*)\b"
        rf"{_CLAUSE_GAP}{{0,20}}?(?:\d*\.\d+|\d+\s*%)"
        r"|\b(?:the|our|my)\s+(?:api|service|server|endpoint)\b|(?:production|monitoring)\s+dashboard)"
        # "accuracy through TorchServe is lower than the validation number": a score compared across the two
        rf"|(?:{_SERVING}){_CLAUSE_GAP}{{0,80}}?\b(?:{_SCORES})\b{_CLAUSE_GAP}{{0,60}}?\b(?:{_VERSUS})\b{_CLAUSE_GAP}{{0,60}}?\b(?:{_OFFLINE})\b"
        rf"|\b(?:{_SCORES})\b{_CLAUSE_GAP}{{0,60}}?(?:{_SERVING}){_CLAUSE_GAP}{{0,80}}?\b(?:{_VERSUS})\b{_CLAUSE_GAP}{{0,60}}?\b(?:{_OFFLINE})\b",
        "the model scores well offline and worse where it is served"),
    "said:shuffled": (
        r"shuffle\s*=\s*true|(?:i|we)\s+(?:do\s+|did\s+|already\s+)?shuffle|(?:data|dataset|loader)\s+is\s+(?:already\s+)?shuffled",
        "the data is shuffled"),
    "said:zero_grad_called": (
        r"(?:i|we)\s+(?:do\s+|did\s+|already\s+)?call\w*\s+(?:optimizer\.)?zero_grad|zero_grad\(\)\s+is\s+(?:called|there)",
        "zero_grad() is called"),
    "said:eval_called": (
        r"(?:i|we)\s+(?:do\s+|did\s+|already\s+)?(?:call\w*|use\w*|set\w*)\s+(?:model\.)?eval\(\)|model\.eval\(\)\s+is\s+(?:called|there|set)",
        "model.eval() is called"),
}
# (re.A: a word boundary also falls between Latin letters and CJK characters, "变成nan了", "用了fp16训练")
_COMPILED = {k: re.compile(p, re.I | re.A) for k, (p, _) in _PATTERNS.items()}
# A statement of fact ("shuffle=True") right after a negation says the opposite: "does not pass shuffle=True".
_NEGATED = re.compile(r"(?:\bnot|n't|\bno|\bnone\s+of|\bnever|\bwithout|\bforg[eo]t\w*|\bmissing|\bdon'?t|\bisn'?t"
                      # ... and the negations of the other languages posts come in (Portuguese/Spanish, French,
                      # German, Russian): "não estou usando mixed precision", "sin fp16", "ohne AMP", "без amp"
                      r"|\bnão|\bnao|\bsin|\bsem|\bnunca|\bpas|\bsans|\bnicht|\bkein\w*|\bohne|\bне|\bнет|\bбез)"
                      r"\W+(?:\w+\W+){0,3}$", re.I)
# missing values the user already dealt with ("I replaced the NA values using the median", "dropped the rows with
# NaN"): what they say is that the data is clean now
_HANDLED = re.compile(r"\b(?:replac|fill|drop|remov|imput|handl|clean|interpolat)\w*\W+(?:\w+\W+){0,3}$", re.I)
_FACTS = ("said:shuffled", "said:zero_grad_called", "said:eval_called", "said:fp16", "said:relu_output",
          "said:lr_called_small", "said:grows_to_nan", "said:smaller_lr_works")
# Where a clause ends (a negation before it denies nothing after it); not the point of "0.01".
_CLAUSE_END = re.compile(r"[;!?\n。；！？]|\.(?=\s|$)")
# said:fp32_works denied inside or right after the match ("works in fp32 either", "no longer works in fp32")
_FP32_DENIED = re.compile(r"\beither\b|n'?t\b|\bnot\b|\bno\s+longer\b"
                          r"|\bno\s+(?:funciona|anda|va)\b|\bnão\b|\btampoco\b|\bnicht\b|\bне\b|\bpas\b|也不|不行|还是|できない|"
                          r"しない|ダメ|ません",
                          re.I)


# A learning rate the user names: extreme values are evidence even in words (lr >= 1 for SGD/Adam-family
# optimizers; <= 1e-7 barely moves weights), weighed by the lr playbooks.
_LR_VALUE = re.compile(r"(?:\b(?:lr|learning[\s_-]?rate)|学习率(?:为|是|设为|设置为)?|学習率(?:を|は|が)?)\s*(?:=|:|：|of|is|was|to|at|down\s+to"
                       r"|up\s+to|set\s+to)?\s*(\d+(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+)\b", re.I | re.A)
LR_HUGE, LR_TINY = 1.0, 1e-7
# A loss the user says never moves off one value ("the loss is always 0.6931", "loss stays at 0", "loss一直为0"):
# exactly 0 is a loss computed over nothing or constant targets (as the loss_zero signal), ln K to the
# digits printed (two at least; K a usual class count) is a model that predicts the class prior (as loss_at_chance).
# (the words that say a value does not move, for the loss here and for a score in _STAYS below)
_STAY = r"always|stays?|stayed|staying|stuck|remains?|remained|constant(?:ly)?|fixed"
# (words for staying that hold a negation of their own: "has not moved from", "doesn't go below")
_STAY_DENYING = (r"(?:has|have|had)\s*(?:n'?t|not)\s+(?:moved|changed|budged)(?:\s+away)?\s+from"
                 r"|(?:(?:does|did|do|will|would)\s*(?:n'?t|not)|never|won'?t|can'?t|cannot)\s+(?:go(?:es)?|drops?|gets?|falls?)\s+below"
                 r"|(?:has|have|had)\s*(?:n'?t|not)\s+(?:gone|dropped|got(?:ten)?|fallen)\s+below")
_STUCK_WORDS = (rf"(?:\b(?:{_STAY}|keeps?\s+(?:at|being|around)"
                r"|never\s+(?:changes?|moves?|decreases?|goes\s+down)"
                # "hovers around 2.30", "plateaus at", "sits at", "converges to 0.6931", "has not moved from 6.90",
                # "doesn't go below 0.693", "never drops below"
                r"|hover(?:s|ed|ing)?\s+(?:around|at)|plateau(?:s|ed|ing)?\s+(?:at|around)|sits?\s+(?:at|around)"
                rf"|converg(?:es|ed|ing|e)\s+to|{_STAY_DENYING})"
                r"\b|一直(?:为|是|都是)?|始终(?:为|是)?)")
_VALUE = r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?)(?![\w.]*\s*%)"
# between "loss" and the words that say it stays (or its value): no other clause ("but", "while", a CJK comma) or
# score name ("the loss falls, but training_acc is always 0", "losses go down but mAP stays 0 for all epochs" are
# no loss at 0)
_LOSS_GAP = (r"(?:(?!\b(?:but|while|whereas)\b|acc|但|\b(?:m?ap|f1|m?iou|auc|dice|precision|recall|bleu|wer|cer)\b)"
             r"[^.;!?\n\d，。；])")
_NEGATED_STAY = re.compile(rf"\b(?:{_STAY_DENYING})", re.I)
_LOSS_STUCK = re.compile(
    rf"\bloss(?:es)?(?![a-z]){_LOSS_GAP}{{0,30}}?{_STUCK_WORDS}[^.;!?\n\d]{{0,20}}?{_VALUE}"
    # "the loss is exactly 0 at every iteration", "loss = 0.6931 throughout training", "loss: 0.0000e+00 from the first batch"
    # ("loss 2.3026 every epoch": a note's shorthand)
    rf"|\bloss(?:es)?(?![a-z]){_LOSS_GAP}{{0,40}}?(?:exactly\s+|[=:]\s*)?{_VALUE}[^.;!?\n]{{0,30}}?"
    r"\b(?:(?:at|in|for|on)\s+(?:every|each|all)|every\s+(?:epoch|step|iter\w*|batch)|throughout|the\s+whole"
    r"|from\s+the\s+(?:start|beginning|first))", re.I | re.A)


def _chance_k(value: str) -> int | None:
    """K when `value` (as printed, two decimals at least) is ln K rounded to its digits, for a usual class
    count K (curves.implied_classes: 2, 3, 4, 5, 10, 100, 1000): 0.69, 1.386, 2.3026; not 4.60 (ln 100 is 4.61)."""
    digits, x = len(value.partition(".")[2]), float(value)
    if digits < 2 or x <= 0:
        return None
    return implied_classes(x, (0.5 * 10 ** -digits + 1e-9) / x)


# A batch size the user names: <= BATCH_TINY samples per step is evidence for the batch causes
# ("when I change the batch size to 1, or 2 the model does not work"), as config:batch_size_tiny
# is in a config. "batch 2 of 100" (a progress count) is not a size; "train_batch_size=2" is one.
_BATCH_VALUE = re.compile(r"(?:\b|(?<=_))(?:batch[\s_-]?size|bs|mini[\s_-]?batch(?:[\s_-]?size)?)(?:[\s_-]?per[\s_-]?(?:gpu|device|card))?"
                          r"\s*(?:=|:|of|is|was|to|at|(?:set|reduced|lowered|decreased|changed|down)\s+to"
                          r"|as|设为|设置为|改为|改成|调到|调成|为|是)?\s*(\d+)\b(?:\s*(?:,|or|and|/)\s*(\d+)\b)?"
                          r"|\bbatch(?:es)?\s+of\s+(\d+)\b(?!\s*(?:/|of\b))", re.I | re.A)
BATCH_TINY = 4
# ... unless the size is that of the test / inference pass ("batch_size=1 at test", "inference batch size 1"):
# training never saw it, so it is no evidence for the batch causes; a model whose results depend on the
# batch it is evaluated with normalises with the batch's own statistics there: batch norm left in
# training mode (eval_mode_forgotten).
_PHASE = r"(?:test(?:ing)?|inference|inferring|eval(?:uat\w+)?|predict(?:ion|ions|ing)?)"
_PHASE_BEFORE = re.compile(rf"(?:(?<![A-Za-z]){_PHASE}[\s_-]*(?:(?:with|using|at|of)\s+(?:an?\s+|the\s+)?)?"
                           rf"|\b(?:at|in|during|for|when)\s+(?:the\s+)?{_PHASE}"
                           rf"(?:\s+(?:phase|time|stage))?\s*,?\s*(?:(?:with|the|a|set|use|using)\s+)*)\Z", re.I)
_PHASE_AFTER = re.compile(rf"\s*(?:at|in|during|for|when)\s+(?:the\s+)?{_PHASE}\b", re.I)


def _at_test(text: str, m: re.Match) -> bool:
    """Whether the batch size matched by `m` is named for the test / inference pass."""
    return bool(_PHASE_BEFORE.search(text[max(0, m.start() - 40):m.start()]) or _PHASE_AFTER.match(text, m.end()))


# The loss falls while the accuracy (or another score) stays put, in the user's words ("pred_loss decreases fast
# while avg_acc stays at 50%", "accuracy fixed at 0.5 while training loss stably drops", "loss在不断降低，但是
# training_acc一直是0"): what curves.py reads from the two series as accuracy_stuck_loss_falls (a score not computed
# from the predictions, or scored against targets that are not the inputs' own). The fall must not be denied ("the
# loss does not fall").
_FALLS = r"(?:decreas\w*|drops?|dropping|falls?|falling|fell|go(?:es|ing)?\s+down|reduc\w*|converg\w*|(?<![不没未])(?:降低|下降))"
_SCORE = r"(?<![A-Za-z])(?:acc\w*|f1|auc|iou|miou|map|dice|precision|recall|top-?1|准确率|精度)(?![A-Za-z])"
_STAYS = (rf"(?:{_STAY}|frozen|never\s+(?:increas|improv|chang|mov)\w*"
          r"|(?:does|did)\s*(?:n'?t|not)\s+(?:increas|improv|chang|go\s+up|mov)\w*|一直|始终|不变)")
_SCORE_STUCK = re.compile(
    rf"loss\w*{_CLAUSE_GAP}{{0,40}}?(?P<v1>{_FALLS}){_CLAUSE_GAP}{{0,80}}?{_SCORE}{_CLAUSE_GAP}{{0,40}}?{_STAYS}"
    rf"|{_SCORE}{_CLAUSE_GAP}{{0,40}}?{_STAYS}{_CLAUSE_GAP}{{0,80}}?loss\w*{_CLAUSE_GAP}{{0,40}}?(?P<v2>{_FALLS})", re.I)


# the strength of the words' accuracy_stuck_loss_falls (the curves give theirs from the series)
SAID_SCORE_STUCK = 0.8


def _score_stuck_loss_falls(text: str) -> re.Match | None:
    for m in _SCORE_STUCK.finditer(text):
        if not _denied_before(text, m.start("v1") if m.group("v1") else m.start("v2")):
            return m
    return None


def without_worked_around(symptoms: list[str]) -> list[str]:
    """The sentences with each out-of-memory error the user says they worked around blanked ("I was
    getting a CUDA out of memory issue, so I made the following change"): that error is context, not
    the failure asked about, so it names no failure class and no cause's symptom."""
    rx = _COMPILED["said:oom_worked_around"]
    return [rx.sub(lambda m: " " * len(m.group(0)), t) for t in symptoms]


# what every lr tried is said to do: fail alike (said:any_lr_no_help needs one in its sentence)
_LR_FAILS = re.compile(r"\b(?:nan|diverg\w*|stuck|same\s+(?:loss|result|nan|value|accuracy|behaviou?r|problem|curve)|fails?|"
                       r"failed|plateau\w*|no\s+(?:change|difference)|barely|"
                       r"does\s*n[o']t|won'?t|never|explod\w*|stays?|flat|not\s+(?:learn|converg|improv)\w*)\b", re.I)


_OWN_ACTION = re.compile(r"\b(?:i|we)\b(?:\s+\w+){0,2}\s*$", re.I)


def _sentence_of(text: str, m: re.Match) -> str:
    """The sentence of `text` around a match (from the sentence end before it to the one after it)."""
    lo = max((e.end() for e in _CLAUSE_END.finditer(text, 0, m.start())), default=0)
    hi = _CLAUSE_END.search(text, m.end())
    return text[lo:hi.start() if hi else len(text)]


def _denied_before(text: str, at: int, rx: re.Pattern = _NEGATED) -> bool:
    """A negation (or what `rx` finds) in the 40 characters before `at`, within its own clause: one in the clause
    before ("lowering the lr did not avoid it; the fp32 run is fine") does not deny this one."""
    return bool(rx.search(_CLAUSE_END.split(text[max(0, at - 40):at])[-1]))


# A loss or gradient norm the user says is huge at the start ("starts with a loss of 2.8e6 and a gradient norm of 7e7",
# "the first iteration loss is up to 20000"): a scale broken before training (init, inputs), not one that training
# blew up (said:huge_start; SAID_HUGE_START or more)
_HUGE_START = re.compile(r"\b(?:start\w*|begin\w*|initial(?:ly)?|first)\b[^.;!?\n]{0,30}?\b(?:loss|grad(?:ient)?(?:s|[_\s]?norm)?)\b"
                         r"(?P<gap>[^.;!?\n\d]{0,20}?)(\d+(?:\.\d+)?\s*e\+?\d+|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)", re.I)
# ... not a step's number ("the loss at iteration 50000 became NaN", "until step 12000", "by step 30000")
_HUGE_START_COUNTER = re.compile(r"\b(?:steps?|iter\w*|epoch\w*|batch\w*|rounds?)\W*$|\baccumulation\b", re.I)
SAID_HUGE_START = 1e4
# said:serving_gap: a denial this close before the serving word ("but I have not deployed") denies it
SERVING_DENIAL_BACK = 30


# What the user says as a guess in the same sentence ("I think the checkpoint isn't restored", "maybe the weights were
# not loaded"): a hypothesis to test, not a fact they saw; read only for the kinds users most often guess at.
_GUESSABLE = frozenset({"said:weights_not_loaded"})
_HEDGED = re.compile(HEDGE_CUE + r"[^.;!?\n]*$", re.I)
HEDGE_BACK = 120


def ruled_out(symptoms: list[str]) -> dict[str, Signal]:
    text = " ".join(symptoms)
    if not text.strip():
        return {}
    out: dict[str, Signal] = {}
    high = _lr_high_for(text) if _LR_VALUE.search(text) else (LR_HUGE, "")
    for v in _LR_VALUE.finditer(text):
        try:
            lr = float(v.group(1))
        except ValueError:
            continue
        if lr >= min(LR_HUGE, high[0]) and lr > 0 and "said:lr_huge" not in out:
            out["said:lr_huge"] = Signal("said:lr_huge", 1.0, f"you said the learning rate is {v.group(1)}"
                                         + (f" ({high[1]})" if lr < LR_HUGE else ""))
        elif 0 < lr <= LR_TINY and "said:lr_tiny" not in out:
            out["said:lr_tiny"] = Signal("said:lr_tiny", 1.0, f"you said the learning rate is {v.group(1)}")
    for b in _BATCH_VALUE.finditer(text):
        sizes = [int(x) for x in b.groups() if x is not None]
        if not sizes or not 1 <= min(sizes) <= BATCH_TINY:
            continue
        kind, what = ("said:eval_batch", "at test / inference ") if _at_test(text, b) else ("said:batch_tiny", "")
        if kind not in out:
            out[kind] = Signal(kind, 1.0, f"you said the batch size {what}is {b.group(0).strip()[-40:]}")
    for st in _LOSS_STUCK.finditer(text):
        g = 1 if st.group(1) else 2
        # (a negation that is part of the words for staying, "doesn't go below", "has not moved from", denies nothing)
        own = _NEGATED_STAY.search(text, st.start(), st.start(g))
        if _denied_before(text, st.start() if own else st.start(g)):
            continue
        value = st.group(g)
        k = _chance_k(value)
        stuck = "said:loss_zero" if float(value) == 0 else "said:loss_at_chance" if k else ""
        if stuck and stuck not in out:
            out[stuck] = Signal(stuck, 1.0, f"you said the loss stays at {value}" + (f" (ln {k})" if k else ""))
    for kind, rx in _COMPILED.items():
        m = rx.search(text)
        if m and kind == "said:data_nonfinite" and (_denied_before(text, m.start())
                                                    or _denied_before(text, m.start(), _HANDLED)):
            out["said:data_clean"] = Signal("said:data_clean", 1.0, f"you said the data holds no NaN / missing values: "
                                            f"\"{m.group(0)[:80]}\"")
            continue
        if m and kind in _FACTS and _denied_before(text, m.start()):
            m = None
        if m and kind == "said:grows_to_nan" and _OWN_ACTION.search(text[max(0, m.start() - 30):m.start()]):
            m = None        # ("I have increased the lr and then nan appears": the user's change, not a growth)
        if m and kind == "said:any_lr_no_help" and not _LR_FAILS.search(_sentence_of(text, m)):
            m = None        # ("with any learning rate I try, it trains fine": no failure said)
        if m and kind == "said:serving_gap" and _SERVING_DENIED.search(m.group(0)[-SERVING_DENIAL_BACK:]):
            m = None        # "... but I have not deployed anything yet"
        if m and kind in _GUESSABLE and _HEDGED.search(text[max(0, m.start() - HEDGE_BACK):m.start()]):
            m = None        # ("I think the checkpoint isn't restored properly": the user's guess, no observation)
        if m and kind == "said:fp32_works" and (_denied_before(text, m.start())
                                                or _FP32_DENIED.search(text[m.start():m.end() + 20])):
            m = None   # "it does not work in fp32 either": the opposite
        if m:
            out[kind] = Signal(kind, 1.0, f"you said {_PATTERNS[kind][1]}: \"{m.group(0)[:80]}\"")
    if "said:lower_lr_no_help" in out:
        out.pop("said:smaller_lr_works", None)     # (a smaller lr the same words say did not help)
    for h in _HUGE_START.finditer(text):
        try:
            if _HUGE_START_COUNTER.search(h.group("gap")):
                continue
            size = float(h.group(2).replace(",", "").replace(" ", ""))
        except ValueError:
            continue
        if size >= SAID_HUGE_START and not _denied_before(text, h.start()) and not _IN_CLAUSE_DENIAL.search(h.group(0)):
            out["said:huge_start"] = Signal("said:huge_start", 1.0, f"you said it starts huge: \"{h.group(0)[:80]}\"")
            break
    out.update(_narrated_nan_evidence(text))
    if (falls := _score_stuck_loss_falls(text)) is not None:
        # (the curves' own kind, as the user's words: it weighs the causes, meets no requirement)
        out["accuracy_stuck_loss_falls"] = Signal("accuracy_stuck_loss_falls", SAID_SCORE_STUCK,
                                                  f"you said the loss falls while the score stays: \"{falls.group(0)[:80]}\"",
                                                  data={"narrated": True})
    return out


# What the user reports about a NaN that separates its causes (taxonomy's non_finite_loss group), in their words:
# - the NaN comes at the same step / batch each run ("at exactly the same iteration (1847) every time"): one
#   sample of the data, not the optimisation (said:nan_same_batch, weighed by the playbooks);
# - a framework's log / sqrt / exp they quote ("loss = ce + 0.1 * torch.log(pred_var)", "torch.log(y_pred) yields
#   -inf"): the code's unsafe math (code:unsafe_log, as their words: it weighs the causes, meets no requirement);
# - grad norms they list that grow by orders of magnitude ("2.1, 5.7, 40, 900, 1e5, 3e8 and then nan"): the
#   curves' grad_growth, as their words.
_NAN_WORD = re.compile(r"\b(?:nan|inf|infinite|infinity)\b|-inf\b|溢出", re.I)
_SAME_PLACE = re.compile(
    r"\b(?:same|particular|specific|certain|fixed)\s+(?:\w+\s+)?(?:iteration|step|batch|sample|point|epoch)s?\b"
    r"(?:\s*\(?\d+\)?)?[^.;!?\n]{0,40}?\b(?:every|each)\s+(?:time|run)"
    r"|\b(?:every|each)\s+(?:time|run)[^.;!?\n]{0,40}?\b(?:at|on|in)\s+(?:the\s+)?(?:same|exactly\s+the\s+same)\s+"
    r"(?:iteration|step|batch|sample|epoch)"
    r"|\balways\s+(?:at|on|in)\s+(?:the\s+)?(?:same\s+)?(?:iteration|step|batch)\s*\d+"
    r"|\balways\s+(?:at\s+)?(?:ep(?:och)?\s*\d+\s*,?\s+)?(?:iteration|iter|it|step|batch)\s*\d+"
    r"|\b(?:at|around|near)\s+(?:exactly\s+|precisely\s+)?(?:iteration|iter|step|batch)\s*[~#]?\s*\d+[^.;!?\n]{0,20}?"
    r"\b(?:every|each)\s+(?:single\s+)?(?:time|run)\b", re.I)
_MATH_CALL = re.compile(r"\b(?:torch|tf(?:\.math)?|K|jnp|F)\.(?:log|log2|log10|sqrt|rsqrt|exp|pow)\s*\(")
_GRAD_LIST = re.compile(r"\bgrad(?:ient)?s?[\s_-]*norms?\b[^.;!?\n\d]{0,40}?"
                        r"((?:\d[\d.]*(?:e[-+]?\d+)?\s*(?:,|->|→|then|to)\s*(?:and\s+)?){2,}\d[\d.]*(?:e[-+]?\d+)?)", re.I)
SAID_GRAD_GROWTH = 100.0     # the growth, last value over first, from which listed grad norms are grad_growth


# - a validation loss they say is NaN while the training loss is fine ("the validation losses are NaN ... the normal
#   loss computed every batch seems to work fine", "only the val loss is nan"): the curves' val_nonfinite_only.
_HELD_LOSS = r"\b(?:val(?:idation)?|eval(?:uation)?|test|dev)[\s_-]*(?:set\s+)?loss(?:es)?\b"
_VAL_NAN = re.compile(rf"{_HELD_LOSS}[^.;!?\n]{{0,50}}?(?:\bnan\b|\binf\b|-inf\b)", re.I)
# ... and a training loss they say goes NaN too ("decreases for two epochs and then becomes NaN", "until it also turns nan")
_TRAIN_LOSS = r"\b(?:train(?:ing)?|normal|per[\s-]?batch|batch)\s+loss(?:es)?\b"
_TRAIN_NAN_TOO = re.compile(rf"{_TRAIN_LOSS}(?:(?!{_HELD_LOSS})[^.;!?\n]){{0,80}}?\b(?:nan|inf)\b", re.I)
_VAL_NAN_ONLY = re.compile(rf"\bonly\s+(?:the\s+)?{_HELD_LOSS}[^.;!?\n]{{0,20}}?\b(?:nan|inf)\b", re.I)
_IN_CLAUSE_DENIAL = re.compile(r"\bnot\b|n't\b|\bnever\b|\bno\s+longer\b", re.I)
_DENIED_OR_NAN = re.compile(rf"{_IN_CLAUSE_DENIAL.pattern}|\bnan\b|\binf\b", re.I)    # (a training loss "fine" that is NaN)
_TRAIN_LOSS_FINE = re.compile(
    rf"{_TRAIN_LOSS}[^.;!?\n]{{0,50}}?"
    r"\b(?:fine|normal(?:ly)?|ok(?:ay)?|good|decreas\w*|go(?:es)?\s+down|works?|finite|reasonable|as\s+expected)\b", re.I)


def _narrated_nan_evidence(text: str) -> dict[str, Signal]:
    out: dict[str, Signal] = {}
    if not _NAN_WORD.search(text):
        return out
    if ((m := _VAL_NAN_ONLY.search(text)) or ((m := _VAL_NAN.search(text)) and (f := _TRAIN_LOSS_FINE.search(text))
                                               and not _DENIED_OR_NAN.search(f.group(0))
                                               and not _TRAIN_NAN_TOO.search(text))) \
            and not _denied_before(text, m.start()) and not _IN_CLAUSE_DENIAL.search(m.group(0)):
        out["val_nonfinite_only"] = Signal("val_nonfinite_only", 0.8, f"you said only the validation loss is non-finite: "
                                           f"\"{m.group(0)[:80]}\"", data={"narrated": True})
    if (m := _SAME_PLACE.search(text)) and not _denied_before(text, m.start()):
        out["said:nan_same_batch"] = Signal("said:nan_same_batch", 1.0,
                                            f"you said the NaN comes at the same place each run: \"{m.group(0)[:80]}\"")
    if m := _MATH_CALL.search(text):
        out["code:unsafe_log"] = Signal("code:unsafe_log", 0.5, f"you quoted {m.group(0)[:40]}...) beside the NaN: "
                                        "math that is infinite at some inputs", data={"narrated": True})
    for m in _GRAD_LIST.finditer(text):
        try:
            vals = [float(v) for v in re.findall(r"\d[\d.]*(?:e[-+]?\d+)?", m.group(1), re.I)]
        except ValueError:
            continue
        if len(vals) >= 3 and vals[0] > 0 and vals[-1] / vals[0] >= SAID_GRAD_GROWTH:
            r = vals[-1] / vals[0]
            out["grad_growth"] = Signal("grad_growth", min(1.0, math.log10(r) / 3),
                                        f"you said the grad norm grows {r:.0f}x: \"{m.group(0)[:80]}\"",
                                        data={"narrated": True})
            break
    return out


def chance_under_high_lr(at_chance: Signal, lr_huge: Signal) -> Signal:
    """The words' chance_under_high_lr (curves.py): a loss at ln K (said, or read from the run's own
    curve) under an lr the user names far above its range (made in scoring.extract, where both are known)."""
    return Signal("said:chance_under_high_lr", 1.0,
                  f"{at_chance.summary}, and {lr_huge.summary.removeprefix('you said ')}")


# An Adam-family optimizer, and a pretrained model being fine-tuned, named in the user's words: an lr is
# far above their range from a multiple of curves.py's marks for an artifact's lr on: 10x ADAM_LR_HIGH (Adam at
# 0.1; 0.05 trains some small models), 3x FINETUNE_LR_HIGH (a fine-tune at 3e-3, 100x BERT's 2e-5..5e-5: 10x left
# "learning_rate=5e-3" for a RoBERTa fine-tune unread; no corpus tune post names a fine-tune lr between the two).
_WORDS_X = 10.0
_FINETUNE_WORDS_X = 3.0
_ADAM_WORDS = re.compile(r"\b(?:adam\w*|rmsprop|lamb|adafactor)\b", re.I | re.A)
_SGD_WORDS = re.compile(r"\b(?:sgd|momentum)\b", re.I | re.A)
_TRANSFORMER_WORDS = re.compile(r"\b(?:bert\w*|roberta|gpt[\w-]*|llama\w*|t5|from_pretrained|transformers|lora)\b",
                                re.I | re.A)
_FINETUNE_WORDS = re.compile(r"\b(?:fine[\s_-]?tun\w*|pre[\s_-]?trained)\b", re.I | re.A)


def _lr_high_for(text: str) -> tuple[float, str]:
    """(the lr from which the optimizer the words name is far off its range, what names it). SGD named
    keeps the plain mark: fine-tuning a pretrained CNN with SGD at 0.01 is the usual recipe."""
    if _SGD_WORDS.search(text):
        return LR_HUGE, ""
    adam = _ADAM_WORDS.search(text)
    if _TRANSFORMER_WORDS.search(text) or (adam and _FINETUNE_WORDS.search(text)):
        return _FINETUNE_WORDS_X * FINETUNE_LR_HIGH, "far above a fine-tune's 1e-5..1e-4"
    if adam:
        return _WORDS_X * ADAM_LR_HIGH, "far above an Adam-family optimizer's 1e-4..1e-3"
    return LR_HUGE, ""


# Words that describe a failure in the user's sentences (any language of the field, negation or not:
# "does not learn", "stuck at 10%", "should reach 95%", "NaN", "OOM"): with them, healthy-looking
# artifacts are an open question, not "no issue". "Is this normal?" has none.
_FAILURE_WORDS = re.compile(
    r"\b(?:errors?|exceptions?|traceback|nan|inf|fail\w*|crash\w*|stuck|stall\w*|plateau\w*|flat|diverg\w*|explod\w*"
    r"|oom|out\s+of\s+memory|hang\w*|hung|freez\w*|killed|wrong|garbage|random|chance|worse|worsen\w*|drops?|dropped"
    r"|degrad\w*|regress\w*|never|won'?t|doesn'?t|don'?t|didn'?t|isn'?t|cann?'?t|cannot|barely|hardly|not\s+(?:\w+\s+)?(?:learn|work|decreas"
    r"|improv|converg|train|chang|go\w*\s+down|fit)\w*|stops?|stopped|should|expected|instead|too\s+(?:low|high|slow|big|small)"
    r"|spikes?|jumps?|slow\w*|same\s+(?:class|output|value|prediction|result)s?|always|bad|poor\w*|problem\w*|issues?|bug\w*"
    r"|broken|unstable|oscillat\w*|overfit\w*|underfit\w*|collaps\w*|blow\w*\s+up|misclassif\w*|mis-?predict\w*"
    # a curve the user calls wildly unsteady: "swings all over the place", "fluctuates wildly", "erratic" (not "noisy"
    # or a bare "fluctuates": a minibatch loss does, and "it fluctuates a little, is this normal?" asks about a
    # healthy run)
    r"|all\s+over\s+the\s+place|(?:swing|fluctuat|bounc|jump)\w*\s+(?:wildly|a\s+lot|hugely|massively|heavily|like\s+crazy)"
    r"|erratic\w*|(?:really|very|so|super|extremely)\s+jumpy|swing\w*\s+up\s+and\s+down"
    # results that fall short of (or oddly beat) a reference: "much lower than the paper", "mAP 0.66 vs 0.71"
    r"|(?:lower|higher|worse|better)\s+than\s+(?:\w+\s+){0,3}(?:paper|reported|expected|readme|official|claimed"
    r"|published|original|baseline)\w*|(?:much|far|very|significantly|way)\s+(?:lower|higher|worse|low|less)"
    r"|mismatch\w*|discrepanc\w*|inconsisten\w*|differs?|different\s+(?:from|than|results?)|not\s+(?:the\s+)?same"
    r"|no\s+effect|has\s+no\s+impact|(?:all|only|always)\s+(?:zeros?|0|ones?|the\s+same)|stays?\s+(?:\w+\s+){0,2}constant"
    r"|values?\s+(?:are\s+)?off|not\s+(?:as\s+)?(?:good|expected|correct|right)|incorrect|weird|strange)\b"
    # the same in Chinese posts: not right, error, problem, failure, abnormal, does not converge, very low, all 0;
    # does not change / fall / rise, keeps growing, blows up, stuck, crashes, out of memory, gets worse, far lower,
    # "only 0.2" (a number falling short), predicted as one class, random, oscillates, over/underfits,
    # inconsistent, cannot reproduce / reach
    r"|不对|错误|问题|失败|异常|不收敛|报错|很低|很差|全是0|全为0|都是0"
    # (a metric's word before "does not change" / "only N": "其他参数保持不变" and "只有 2 张卡" describe a setup)
    r"|(?:loss|损失|准确率|精度|正确率|acc\w*|指标|输出|结果|预测)[^，。,.；;]{0,8}(?:不变|没有?变化|不下降|不降|只有\s*\d)"
    r"|降不下|下不去|上不去|不上升|越来越大|越来越高|一直变大|爆炸|卡住|卡死|崩溃|显存不足|爆显存"
    r"|内存不足|溢出|变差|差很多|低很多|预测(?:成|为)同一|全被预测|都被预测|几乎全|震荡|波动很大|严重过拟合|过拟合了|欠拟合"
    r"|不一致|对不上|不正常|奇怪|无法|达不到|复现不了|变成\s*nan|出现\s*nan|nan了"
    # Japanese: does not fall / rise / change / converge / learn, diverges, overfits, error, strange, abnormal,
    # stuck, blows up, out of memory, worse, unstable, all the same value
    r"|下がらない|上がらない|変わらない|収束しない|学習しない|学習できない|学習が進まない|発散|過学習して|エラー"
    r"|おかしい|異常|止まった|止まって|爆発|メモリ不足|悪化|不安定|全部同じ|同じ値|nanになる|nanになって|nanが出"
    # Korean: the same, and "too good" (a result the user does not trust)
    r"|안\s*떨어|떨어지지\s*않|안\s*올라|오르지\s*않|변하지\s*않|안\s*변|수렴하지\s*않|수렴이\s*안|발산|과적합"
    r"|에러|오류|이상해|이상하|멈춰|멈춘|폭발|메모리\s*부족|나빠|불안정|같은\s*값|너무\s*좋게|nan이\s*나|nan으로", re.I)


def names_failure(symptoms: list[str]) -> bool:
    """The user's sentences describe a failure (the engine's status: healthy-looking artifacts
    beside such words are an open question, not "no issue"). Broader than the scoring's
    `Features.failure_said` (a failure class or a cause's vocabulary), which feeds a fitted term. A
    denied failure ("no errors", "no nan") names none."""
    return any(_FAILURE_WORDS.search(undenied(s)) for s in symptoms)
