const net = new NeuralNetwork();
net.train([
    {
        input: [1,2,3,4,5],
        ouptut: [3]
    },
    {
        input: [2,3,4,5,6],
        ouptut: [4]
    },
    {
        input: [3,4,5,6,7],
        ouptut: [5]
    },
    {
        input: [4,5,6,7,8],
        ouptut: [6]
    },
]);
console.log(net.run([2,3,4,5,6])); // returns [0.999999994634693241234...]
