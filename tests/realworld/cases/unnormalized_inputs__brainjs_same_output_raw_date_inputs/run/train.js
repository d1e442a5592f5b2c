  const brain = require("brain.js");
  const net = new brain.NeuralNetwork({});

  net.train([{
    input: {
      day: 1,
      month: 2,
      year: 2017
    },
    output: {
      '16': 1,
      '20': 1,
      '31': 1,
      '33': 1,
      '46': 1
    }
  },
  {
    input: {
      day: 27,
      month: 1,
      year: 2017
    },
    output: {
      '3': 1,
      '16': 1,
      '17': 1,
      '37': 1,
      '47': 1
    }
  },
  {
    input: {
      day: 25,
      month: 1,
      year: 2017
    },
    output: {
      '11': 1,
      '32': 1,
      '40': 1,
      '43': 1,
      '48': 1
    }
  },
  {
    input: {
      day: 22,
      month: 1,
      year: 2017
    },
    output: {
      '17': 1,
      '22': 1,
      '25': 1,
      '35': 1,
[... part of the pasted training data not available in the stored copy ...]
      '8': 1,
      '22': 1,
      '43': 1,
      '46': 1
    }
  },
  {
    input: {
      day: 1,
      month: 9,
      year: 2016
    },
    output: {
      '8': 1,
      '13': 1,
      '16': 1,
      '23': 1,
      '42': 1
    }
  },
  {
    input: {
      day: 28,
      month: 8,
      year: 2016
    },
    output: {
      '29': 1,
      '42': 1,
      '44': 1,
      '45': 1,
      '46': 1
    }
  },
  {
    input: {
      day: 26,
      month: 8,
      year: 2016
    },
    output: {
      '4': 1,
      '19': 1,
      '23': 1,
      '26': 1,
      '27': 1
    }
  }
  ]);


  console.log('26,8,2016', net.run({
    day: 26,
    month: 8,
    year: 2016
  }));
  console.log('10,1,2017', net.run({
    day: 10,
    month: 1,
    year: 2017
  }));
  console.log('18,8,2012', net.run({
    day: 18,
    month: 8,
    year: 2012
  }));
