#!/bin/bash
deepspeed train.py --deepspeed --deepspeed_config ds_config.json --curriculum 10:150,40:150,80:150 2>&1 | tee ds.log
