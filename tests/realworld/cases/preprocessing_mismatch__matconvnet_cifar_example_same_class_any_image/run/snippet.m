%% init
oldFolder = cd;
run setup;
cd(oldFolder);

% load the pre-trained CNN
net = load('cifar_cnn.mat');
net.layers(end)=[];

%% load and preprocess an image

im = imread('horse10.png') ; 
figure(1)
subplot(2,2,1), imagesc(im);
title('image to classify');

im_sing = im2single(im);
subplot(2,2,2), imagesc(im_sing);
title('image singel');

im_sing = imresize(im_sing, net.meta.inputSize(1:2)) ;  % note: inputSize [32 32 3]
subplot(2,2,3),imagesc(im_sing);
title('resized image');

%% run the CNN
res = vl_simplenn(net, im_sing) ;

% show the classification result
scores = squeeze(gather(res(end).x)) ;
[bestScore, best] = max(scores) ;
subplot(2,2,4), imagesc(im) ;
title(sprintf('%s (%d), score %.3f',...
net.meta.classes.name{best}, best, bestScore)) ;
