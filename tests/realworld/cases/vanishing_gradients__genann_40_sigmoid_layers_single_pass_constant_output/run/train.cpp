const auto layers = 40;
const auto neurons = 40;
const auto N = 100;
genann* ann = genann_init(5, layers, neurons, 1);

... 

for (auto& p: inputs) {
    const double o = outputs[i_outputs] / maxValue[targetFilename];
    genann_train(ann, p.second.data(), &o, 0.01);
    i_outputs++;
}

... 

for (... test inputs ...) {
   const auto prediction_raw = *genann_run(ann, input);
   LOG(INFO) << "prediction_raw: " << prediction_raw;
}
