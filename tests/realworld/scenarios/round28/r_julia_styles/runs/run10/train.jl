using Flux, CUDA, Statistics, LinearAlgebra, JLD2
using Flux: onehotbatch, onecold

@show CUDA.functional()

data = JLD2.load("data/gestures.jld2")
Xtr, ytr = data["Xtr"], onehotbatch(data["ytr"], 1:4)
Xva, yva = data["Xva"], onehotbatch(data["yva"], 1:4)
@show size(Xtr) size(Xva)

model = Chain(Dense(16 => 64, relu), Dense(64 => 64, relu), Dense(64 => 4))
ps = Flux.params(model)
opt = Adam(3e-4)

model = model |> gpu
loader = Flux.DataLoader((Xtr, ytr), batchsize = 64, shuffle = true)
loss(x, y) = Flux.logitcrossentropy(model(x), y)

for epoch in 1:20
    losses = Float32[]
    for (x, y) in loader
        x, y = gpu(x), gpu(y)
        l, gs = Flux.withgradient(() -> loss(x, y), ps)
        Flux.Optimise.update!(opt, ps, gs)
        push!(losses, l)
    end
    xv, yv = gpu(Xva), gpu(yva)
    val_loss = loss(xv, yv)
    val_acc = mean(onecold(cpu(model(xv))) .== onecold(yva))
    @show epoch
    @show mean(losses)
    @show (val_loss, val_acc)
    @show norm(model[1].weight)
end
