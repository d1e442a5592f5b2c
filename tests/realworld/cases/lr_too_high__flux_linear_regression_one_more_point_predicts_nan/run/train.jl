using Flux
actual(x) = 4x + 2
x_train, x_test= hcat(0:5...), hcat(6:10...)
y_train, y_test = actual.(x_train), actual.(x_test)

predict = Dense(1 => 1)
predict(x_train)

loss(x,y) = Flux.Losses.mse(predict(x),y)
loss(x_train,y_train)

using Flux:train!
opt = Descent(0.1)
data = [(x_train, y_train)]

parameters = Flux.params(predict)
predict.weight in parameters, predict.bias in parameters

train!(loss, parameters, data, opt)

loss(x_train, y_train)

for epoch in 1:1000
    train!(loss, parameters, data, opt)
end

loss(x_train, y_train)

predict(x_test)
y_test
