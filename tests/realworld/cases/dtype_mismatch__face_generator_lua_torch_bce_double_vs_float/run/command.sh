th train.lua
