./train.sh Breakout-v0 --environment gym
