python main.py --async --config config.r2d2.atari --env.name breakout
python main.py --async --config config.muzero.atari --env.name qbert
