python inference.py --model_path=las_epoch1_cer_19.pt --audio_path=KsponSpeech_000001.pcm
