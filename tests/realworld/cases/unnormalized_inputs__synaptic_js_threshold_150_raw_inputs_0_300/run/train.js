(() => {

    const synaptic = require('synaptic');

    let Trainer = synaptic.Trainer;
    let Architect = synaptic.Architect;

    let myPerceptron = new Architect.Perceptron(1, 2, 1);
    let myTrainer = new Trainer(myPerceptron);

    const random = (low, high) => (Math.random() * (high - low) + low);

    let trainingSet = [];

    for(let i = 0; i < 10000; i++) {

        const input = parseInt(random(0, 300));
        const output = input >= 150 ? 1 : 0;

        trainingSet.push({
            input: [input],
            output: [output]
        });

    }

    myTrainer.train(
        trainingSet,
        {
            rate: .1,
            iterations: 1000000,
            error: .001,
            shuffle: true,
            log: 1,
            cost: Trainer.cost.CROSS_ENTROPY
        }
    );

    console.log('0', myPerceptron.activate([1]));
    console.log('0', myPerceptron.activate([123]));
    console.log('0', myPerceptron.activate([149]));
    console.log('0', myPerceptron.activate([49]));

    console.log('1', myPerceptron.activate([160]));
    console.log('1', myPerceptron.activate([150]));
    console.log('1', myPerceptron.activate([198]));

})();
