using Flux
using Flux: train!
using Statistics
nn = f64(Chain(Dense(1, 16, relu), Dense(16,16,relu), Dense(16, 1, relu)))
function loss_function(nn,t)
prediction = nn(t)
derivative = gradient(prediction -> sum(prediction), prediction)[1]
initial_condition_loss = (nn([0])[1] - 1)^2
return mean((derivative .+ prediction).^2) + initial_condition_loss
end
ts = 0:0.1:2.0
ts=reshape(ts,(1,:))
opt = Flux.setup(Adam(0.01), nn)
for epoch in 1:1000
train!(loss_function, nn, [(ts,)], opt)
println(loss_function(nn,ts)," ",nn(ts))
end
