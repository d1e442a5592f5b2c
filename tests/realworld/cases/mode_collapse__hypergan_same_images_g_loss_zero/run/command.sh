hypergan train folder/ -s 64x64x3 -b 32 -f png -c model --resize --save_every 100
