model.load("path-to-model")                 
model.learn(total_timesteps= 500000) 
model.save("path-to-model")                
