#!/bin/bash
# first allocation
deepspeed train.py --deepspeed --deepspeed_config ds_config.json --max_steps_this_job 700 2>&1 | tee -a train.log
# resubmitted allocation
deepspeed train.py --deepspeed --deepspeed_config ds_config.json --resume 2>&1 | tee -a train.log
