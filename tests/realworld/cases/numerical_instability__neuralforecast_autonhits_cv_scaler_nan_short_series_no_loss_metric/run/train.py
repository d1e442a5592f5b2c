from neuralforecast import NeuralForecast
from neuralforecast.auto import AutoNHITS, AutoNBEATS
from neuralforecast.losses.pytorch import MQLoss 

Y_df = pd.read_parquet('s3://m5-benchmarks/data/train/target.parquet')
Y_df = Y_df.rename(columns={
    'item_id': 'unique_id', 
    'timestamp': 'ds', 
    'demand': 'y'
})
Y_df['ds'] = pd.to_datetime(Y_df['ds'])

Y_df = Y_df.query('unique_id.str.startswith("FOODS_3")')
Y_df['unique_id'] = Y_df['unique_id'].astype(str)

nf = NeuralForecast(
    models=[
        AutoNHITS(h=horizon, loss=MQLoss(level=[90]), num_samples=5), 
        AutoNBEATS(h=horizon, loss=MQLoss(level=[90]), num_samples=5)
    ],
    freq='D'
)

nf.cross_validation(Y_df, n_windows=3, step_size=28)
