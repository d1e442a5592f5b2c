import sys
s=open(sys.argv[1]).read()
def R(a,b):
    global s
    assert a in s, a
    s=s.replace(a,b)
R('''    mel_hat, log_dur, pitch_hat, energy_hat = model(tokens, durs, pitch, energy, mel.size(1))''','''    if next(model.parameters()).dtype == torch.float16:
        pitch, energy, mel, tok_mask, mel_mask = pitch.half(), energy.half(), mel.half(), tok_mask.half(), mel_mask.half()
    mel_hat, log_dur, pitch_hat, energy_hat = model(tokens, durs, pitch, energy, mel.size(1))''')
R('''        hr = torch.zeros(h.size(0), n_frames, h.size(2))''','''        hr = torch.zeros(h.size(0), n_frames, h.size(2), dtype=h.dtype)''')
R('''    opt = torch.optim.Adam(''','''    if cfg["mixed_precision"]:
        model = model.half()
    opt = torch.optim.Adam(''')
R('''    step = 0
''','''    step = 0
    loss_scale = cfg["dynamic_loss_scale_init"]
    good_steps = 0
''')
R('''            opt.zero_grad()
            losses["loss"].backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
            opt.step()
            step += 1
            if step % cfg["print_step"] == 0:
                p("\\n --> STEP: %d/%d -- GLOBAL_STEP: %d" % (i, steps_per_epoch, step))
                for k, v in losses.items():
                    p("     | > %s: %.5f" % (k, v.item()))
                p("     | > grad_norm: %.5f" % gn.item())
                p("     | > current_lr: %.5f" % opt.param_groups[0]["lr"])
                p("     | > step_time: %.4f" % (time.time() - t0))''','''            opt.zero_grad()
            if cfg["mixed_precision"]:
                (losses["loss"] * loss_scale).backward()
                overflow = any(not torch.isfinite(q.grad).all() for q in model.parameters() if q.grad is not None)
                if overflow:
                    p("Overflow! Skipping step. Attempted loss scale: %g, reducing to %g" % (loss_scale, loss_scale / 2))
                    loss_scale /= 2
                    good_steps = 0
                    step += 1
                    continue
            else:
                losses["loss"].backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
            opt.step()
            good_steps += 1
            if good_steps % cfg["loss_scale_window"] == 0:
                loss_scale *= 2
            step += 1
            p("Train loss %d %.6f Grad Norm %.6f %.2fs/it  (mel %.4f dur %.4f pitch %.4f energy %.4f) loss_scale %g" % (
                step, losses["loss"].item(), gn.item(), time.time() - t0, losses["loss_mel"].item(),
                losses["loss_duration"].item(), losses["loss_pitch"].item(), losses["loss_energy"].item(), loss_scale))''')
R('''        p("\\n > EVALUATION\\n\\n  --> EVAL PERFORMANCE")
        for k, v in tot.items():
            p("     | > avg_%s: %.5f" % (k, v / len(eval_items)))''','''        p("Validation loss %d: %9f  (mel %.4f)" % (step, tot["loss"] / len(eval_items), tot["loss_mel"] / len(eval_items)))''')
R('''        p("\\n > EPOCH: %d/%d" % (epoch, cfg["epochs"]))
''','''        p("Epoch: %d" % epoch)
''')
R('''    p(" > Training Environment:\\n | > Num. of CPUs: 1\\n | > Num. of Torch Threads: 1\\n | > Mixed precision: %s" % cfg["mixed_precision"])
    p(" > Model has %d parameters" % n_params)
    p(" > Number of train samples: %d  | > eval samples: %d" % (len(train_items), len(eval_items)))''','''    p("FP16 Run: %s" % cfg["mixed_precision"])
    p("Model parameters: %d, train utts: %d, val utts: %d" % (n_params, len(train_items), len(eval_items)))''')
R('"trainer_0_log.txt"','"train.log"')
open(sys.argv[2],'w').write(s)
