def load_data_unit(path):
        test_data = np.zeros((1,512,512,1))
        i = np.array(Im.open(path), dtype = np.float32)
        test_data[0,...,0]= i
        return test_data
x_test = load_data_unit("DATA_sample.png")
prediction = net.predict("checkpoints_b/model.ckpt", x_test)
img_ = util.to_rgb(prediction[...,1].reshape(-1,prediction.shape[2],1))
output_path = "DATA_sample_prediction.jpg"
util.save_image(img_, output_path)
