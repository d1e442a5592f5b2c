import equinox as eqx
import jax
import optax
import jax.numpy as jnp

model = eqx.nn.Linear(1, 1, key=jax.random.PRNGKey(1))

optim = optax.adam(learning_rate=0.1)
optim_state = optim.init(eqx.filter(model, eqx.is_array))
def loss(x):
    return jnp.mean(model(x))

grads = jax.grad(loss)(jnp.zeros((1)))

updates, opt_state = optim.update(updates=grads, state=optim_state)
