using Flux, CSV, DataFrames, Statistics, Printf
using Flux: onehotbatch, onecold

function load(path)
    df = CSV.read(path, DataFrame)
    X = Float32.(Matrix(select(df, Not(:class))))'
    y = onehotbatch(df.class, 0:4)
    return X, y
end

Xtr, ytr = load("data/train.csv")
Xva, yva = load("data/val.csv")
@info "loaded data/train.csv: $(size(Xtr, 2)) rows, $(size(Xtr, 1)) features, 5 classes"
@info "loaded data/val.csv: $(size(Xva, 2)) rows"

model = Chain(
    Dense(20 => 64, relu),
    Dense(64 => 64, relu),
    Dense(64 => 5),
    softmax,
)
display(model)

loader = Flux.DataLoader((Xtr, ytr), batchsize = 64, shuffle = true)
opt_state = Flux.setup(Adam(1e-3), model)

accuracy(m, X, y) = mean(onecold(m(X)) .== onecold(y))

for epoch in 1:40
    losses = Float32[]
    for (x, y) in loader
        l, grads = Flux.withgradient(m -> Flux.logitcrossentropy(m(x), y), model)
        Flux.update!(opt_state, model, grads[1])
        push!(losses, l)
    end
    val_loss = Flux.logitcrossentropy(model(Xva), yva)
    println("Epoch $epoch: loss = $(round(mean(losses), digits=4)), val_loss = $(round(val_loss, digits=4)), ",
            "train_acc = $(accuracy(model, Xtr, ytr)), val_acc = $(accuracy(model, Xva, yva))")
end
