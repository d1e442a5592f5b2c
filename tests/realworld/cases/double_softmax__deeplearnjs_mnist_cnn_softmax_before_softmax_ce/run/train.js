import * as dl from 'deeplearn';
const TRAIN_TEST_RATIO = 5 / 6;
const LEARNING_RATE = 0.2;
const BATCH_SIZE = 64;
const IMAGE_SIZE = 784;
const LABELS_SIZE = 10;
const TRAIN_STEPS = 100;

const myMath = dl.ENV.math;

function weight_variable(shape) {
    let init = dl.truncatedNormal(shape, 0, 0.1, "float32");
    return dl.variable(init);
}

function bias_variable(shape) {
    let init = dl.fill(shape, 0.1);
    return dl.variable(init);
}

function conv2d(x, W) {
    return dl.conv2d(x, W, 1, "same");
}

function max_pool_2x2(x) {
    return dl.maxPool(x, 2, 2, "valid");
}

let W_conv1 = weight_variable([5, 5, 1, 32]);
let b_conv1 = bias_variable([32]);
let W_conv2 = weight_variable([5, 5, 32, 64]);
let b_conv2 = bias_variable([64]);

let W_fc1 = weight_variable([7 * 7 * 64, 1024]);
let b_fc1 = bias_variable([1024]);

let W_fc2 = weight_variable([1024, 10]);
let b_fc2 = bias_variable([10]);

const optimizer = dl.train.sgd(LEARNING_RATE);

const mnistConfig = {
    'data': [
        {
            'name': 'images',
            'path': 'https://storage.googleapis.com/learnjs-data/model-builder/' +
                'mnist_images.png',
            'dataType': 'png',
            'shape': [28, 28, 1]
        },
        {
            'name': 'labels',
            'path': 'https://storage.googleapis.com/learnjs-data/model-builder/' +
                'mn[...]
