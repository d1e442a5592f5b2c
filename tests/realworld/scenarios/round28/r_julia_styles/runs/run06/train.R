library(torch)
source("R/data.R")     # make_datasets() -> list(train, valid)

set.seed(42); torch_manual_seed(42)
device <- if (cuda_is_available()) "cuda" else "cpu"
cat("using device:", device, "\n")

dsets <- make_datasets("data/signals.rds")
train_dl <- dataloader(dsets$train, batch_size = 64, shuffle = TRUE)
valid_dl <- dataloader(dsets$valid, batch_size = 256)
cat("train", length(dsets$train), "/ valid", length(dsets$valid), "\n")

net <- nn_module(
  initialize = function() {
    self$fc1 <- nn_linear(16, 128)
    self$fc2 <- nn_linear(128, 128)
    self$out <- nn_linear(128, 6)
  },
  forward = function(x) {
    x %>% self$fc1() %>% nnf_relu() %>% self$fc2() %>% nnf_relu() %>% self$out()
  }
)
model <- net()$to(device = device)

n_epochs  <- 40
optimizer <- optim_sgd(model$parameters, lr = 0.05, momentum = 0.9)
scheduler <- lr_step(optimizer, step_size = 30, gamma = 0.5)   # halve every 30 epochs

for (epoch in 1:n_epochs) {
  model$train()
  tl <- c()
  coro::loop(for (b in train_dl) {
    optimizer$zero_grad()
    out  <- model(b$x$to(device = device))
    loss <- nnf_cross_entropy(out, b$y$to(device = device))
    loss$backward()
    optimizer$step()
    scheduler$step()
    tl <- c(tl, loss$item())
  })

  model$eval()
  vl <- c(); correct <- 0; n <- 0
  with_no_grad({
    coro::loop(for (b in valid_dl) {
      out <- model(b$x$to(device = device))
      vl <- c(vl, nnf_cross_entropy(out, b$y$to(device = device))$item() * b$y$size(1))
      correct <- correct + (out$argmax(dim = 2) == b$y$to(device = device))$sum()$item()
      n <- n + b$y$size(1)
    })
  })
  cat(sprintf("epoch %2d | train loss %.4f | valid loss %.4f | valid acc %.3f | lr %.2e\n",
              epoch, mean(tl), sum(vl) / n, correct / n, optimizer$param_groups[[1]]$lr))
}
