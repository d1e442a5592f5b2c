var myNetwork = new synaptic.Architect.Perceptron(2, 10,10 , 1);
var trainer = new synaptic.Trainer(myNetwork);

var trainingSet = [
  { input: [0,0], output: [0] },
  { input: [0,1], output: [1] },
  { input: [1,0], output: [1] },
  { input: [1,1], output: [0] }
];

trainer.train(trainingSet,{
	rate: .1,
	iterations: 20000,
	error: .005,
        log:1,
	shuffle: true
});
