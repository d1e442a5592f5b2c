# from BVLC/caffe examples/00-classification.ipynb, as modified by the reporter
#transformer.set_mean('data', (mu))            # subtract the dataset-mean value in each channel
#transformer.set_raw_scale('data', 255)      # rescale from [0, 1] to [0, 255]
