using CSV, DataFrames, Flux, Statistics, Random
using Flux: onehotbatch, onecold

Random.seed!(7)
df = CSV.read("data/customers_2023.csv", DataFrame)
@info "customers_2023.csv: $(nrow(df)) rows x $(ncol(df)) columns"

# features: everything except the id
X = Float32.(Matrix(select(df, Not(:customer_id))))'
X = (X .- mean(X, dims=2)) ./ std(X, dims=2)
y = onehotbatch(df.churned, 0:1)

idx = shuffle(1:nrow(df))
tr, va = idx[1:4000], idx[4001:end]
Xtr, ytr, Xva, yva = X[:, tr], y[:, tr], X[:, va], y[:, va]
@info "train = $(length(tr)), val = $(length(va)), positive rate = $(mean(df.churned))"

model = Chain(Dense(size(X, 1) => 32, relu), Dense(32 => 32, relu), Dense(32 => 2))
opt_state = Flux.setup(Adam(1e-3), model)
loader = Flux.DataLoader((Xtr, ytr), batchsize=64, shuffle=true)

acc(m, X, y) = mean(onecold(m(X)) .== onecold(y))

for epoch in 1:15
    Flux.train!(model, loader, opt_state) do m, x, y
        Flux.logitcrossentropy(m(x), y)
    end
    @info "epoch $epoch" train_loss=Flux.logitcrossentropy(model(Xtr), ytr) train_acc=acc(model, Xtr, ytr) val_loss=Flux.logitcrossentropy(model(Xva), yva) val_acc=acc(model, Xva, yva)
end
