from recbole.quick_start import run_recbole
run_recbole(model= 'Pop', dataset='ml-100k')
