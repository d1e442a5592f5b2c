from pycaret.classification import *
data = pd.read_sql(query,mydb)
from pycaret.classification import *
s = setup(data, target='weather', log_experiment=True, experiment_name= my_experiment_name)
best_model = s.compare_models()
