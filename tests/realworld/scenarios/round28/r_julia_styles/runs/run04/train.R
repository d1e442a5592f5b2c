library(torch)

df <- read.csv("data/parts_features.csv")   # export from the data team

x <- torch_tensor(as.matrix(df[, paste0("x", 1:8)]), dtype = torch_float())
y <- torch_tensor(df$label, dtype = torch_long())

ds <- tensor_dataset(x, y)
dl <- dataloader(ds, batch_size = 50, shuffle = TRUE)

net <- nn_sequential(
  nn_linear(8, 32),
  nn_relu(),
  nn_linear(32, 5)
)
opt <- optim_adam(net$parameters, lr = 1e-3)

for (epoch in 1:20) {
  coro::loop(for (b in dl) {
    opt$zero_grad()
    loss <- nnf_cross_entropy(net(b[[1]]), b[[2]])
    loss$backward()
    opt$step()
  })
  cat("epoch", epoch, "done\n")
}
