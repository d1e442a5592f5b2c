library(torch)
library(dplyr)

df <- readRDS("data/sessions_clean.rds") %>% filter(country == "DE")
feats <- grep("^f_", names(df), value = TRUE)

x <- torch_tensor(as.matrix(df[, feats]), dtype = torch_float())
y <- torch_tensor(df$converted + 1L, dtype = torch_long())
dl <- dataloader(tensor_dataset(x, y), batch_size = 32, shuffle = TRUE)

# features live on very different scales -> standardise inside the model
standardize <- nn_module(
  forward = function(x) {
    (x - x$mean(dim = 1, keepdim = TRUE)) / (x$std(dim = 1, keepdim = TRUE) + 1e-5)
  }
)

net <- nn_sequential(standardize(), nn_linear(length(feats), 32), nn_relu(), nn_linear(32, 2))
opt <- optim_adam(net$parameters, lr = 1e-3)

for (epoch in 1:3) {
  losses <- c(); i <- 0
  coro::loop(for (b in dl) {
    i <- i + 1
    opt$zero_grad()
    loss <- nnf_cross_entropy(net(b[[1]]), b[[2]])
    loss$backward()
    opt$step()
    losses <- c(losses, loss$item())
    if (i %% 8 == 0) cat(sprintf("  batch %d/%d  loss = %.4f\n", i, length(dl), loss$item()))
  })
  cat(sprintf("epoch %d: mean loss = %.4f\n", epoch, mean(losses)))
}
