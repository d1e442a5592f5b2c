# 模块配置， 默认启用lora
enable_deepspeed = True
enable_ptv2 = False
enable_lora = True
enable_int8 = True  # qlora int8
enable_int4 = False # qlora int4
