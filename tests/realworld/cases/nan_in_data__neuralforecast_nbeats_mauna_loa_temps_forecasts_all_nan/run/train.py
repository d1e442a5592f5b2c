df = pd.read_csv('MaunaLoaDailyTemps - Copy.csv')
df['unique_id'] = 'H1'
df.rename(columns={date_column: 'ds',forecast_col:'y'}, inplace=True)
train_data = df[['unique_id','ds','y']]
train_data['ds'] = pd.to_datetime(train_data['ds'])

horizon=12
model = [NBEATS(input_size=2*horizon, h=horizon, max_steps=50)]
nf = NeuralForecast(models=model, freq='D')
nf.fit(df=train_data)

Y_hat_df = nf.predict().reset_index()
