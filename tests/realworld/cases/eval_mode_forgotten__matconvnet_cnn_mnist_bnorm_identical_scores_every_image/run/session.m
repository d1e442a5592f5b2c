>> [net_bn, info_bn] = cnn_mnist('expDir', 'data/mnist-bnorm', 'useBnorm', true);
>> net_bn1 = net_bn;
>> net_bn1.layers{1,11}.type = 'softmax';

>> DB = load('data\mnist-bnorm\imdb.mat')
>> im_preprocessed = DB.images.data(:,:,:,4);
>> res = vl_simplenn(net_bn1, im_preprocessed );
>> scores = squeeze(gather(res(end).x)) ;
>> scores'

ans =

    0.0984    0.0987    0.0997    0.1015    0.0988    0.1006    0.0977    0.1005    0.1030    0.1011

>> im_preprocessed = DB.images.data(:,:,:,5);
>> imagesc(im_preprocessed)
>> res = vl_simplenn(net_bn1, im_preprocessed );
>> scores = squeeze(gather(res(end).x)) ;
>> scores'

ans =

    0.0984    0.0987    0.0997    0.1015    0.0988    0.1006    0.0977    0.1005    0.1030    0.1011
