
> import csv
> import cv2
> import numpy as np
> import matplotlib.pyplot as plt
> import glob

> def plot_CNN(history): # summarize history for accuracy
>     fig1 = plt.figure()
>     plt.plot(history.history['acc'], figure = fig1)
>     plt.plot(history.history['val_acc'], figure = fig1)
>     plt.title('model accuracy')
>     plt.ylabel('accuracy')
>     plt.xlabel('epoch')
>     plt.legend(['train', 'test'], loc='upper left')
>     fig1.savefig('results/pipeline_accuracy.png')
>     
>     fig2 = plt.figure() # summarize history for loss
>     plt.plot(history.history['loss'], figure = fig2)
>     plt.plot(history.history['val_loss'], figure = fig2)
>     plt.title('model loss')
>     plt.ylabel('loss')
>     plt.xlabel('epoch')
>     plt.legend(['train', 'test'], loc='upper left')
>     fig2.savefig('results/pipeline_loss.
