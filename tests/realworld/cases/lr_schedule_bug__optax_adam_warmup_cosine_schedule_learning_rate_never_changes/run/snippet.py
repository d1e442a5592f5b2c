init_value, peak_value, end_value, total_steps, warmup_steps = 1e-6, 1e-3, 1e-6, 1e4, 2e3
schedule_fn = optax.warmup_cosine_decay_schedule(init_value, peak_value, warmup_steps, total_steps, end_value)
scheduled_adam = optax.inject_hyperparams(optax.adam)(learning_rate=schedule_fn)

def train_step(params, state):
    (loss_val, batch_stats), grads = loss_grad_fn(params)
    updates_params, opt_state = optimizer.update(grads, state, params)
    params = optax.apply_updates(params, updates_params)
    return params, loss_val, batch_stats, opt_state

params, loss_val, batch_stats, opt_state = train_step(params, state) 
print(opt_state.hyperparams['learning_rate'])
