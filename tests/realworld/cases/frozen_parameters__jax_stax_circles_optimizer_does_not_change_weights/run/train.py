import jax.numpy as np
from jax import grad, jit, random
from jax.experimental import optimizers, stax
from jax.experimental.stax import Dense, Relu, Sigmoid
from sklearn.datasets import make_circles
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


def prepare_circles(n_samples):
    X, y = make_circles(n_samples, noise=0.2, factor=0.5, random_state=1)
    X = StandardScaler().fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.4, random_state=42
    )
    return X_train, X_test, y_train, y_test


learning_rate = 0.01
n_epochs = 100
n_features = 2
n_hidden_layers = 1
n_nodes = 4
n_samples = 1000

X_train, X_test, y_train, y_test = prepare_circles(n_samples)

init_fun, apply_fun = stax.serial(
    Dense(n_nodes), Relu, Dense(n_nodes), Relu, Dense(1), Sigmoid
)
out_shape, params = init_fun(random.PRNGKey(2), (n_samples, n_features))
print(params)

opt_init, opt_update, get_params = optimizers.adam(step_size=learning_rate)
opt_state = opt_init(params)


def loss(params, x, y):
    p = apply_fun(params, x)
    ce_loss = -np.sum(y * np.log(y) + (1 - y) * np.log(1 - y))
    return ce_loss


# Define a compiled update step
@jit
def step(i, opt_state, x, y):
    params = get_params
[...]
