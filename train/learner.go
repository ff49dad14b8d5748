package train

import "io"

// Regressor is a fitted model: what cross-validation and Train need from
// an Ensemble or a Forest.
type Regressor interface {
	// Predict returns the predicted target of one feature vector.
	Predict(x []float64) float64
	// NumTrees is the number of trees in the model.
	NumTrees() int
	// WriteLightGBM writes the model in LightGBM's text format, v3.
	WriteLightGBM(w io.Writer, featureNames []string) error
}

// Learner fits a Regressor to the rows of x (row-major, nFeatures values
// a row) and targets y. GBRTOptions and ForestOptions are Learners.
type Learner interface {
	Fit(x []float64, nFeatures int, y []float64) (Regressor, error)
}

var (
	_ Learner   = GBRTOptions{}
	_ Learner   = ForestOptions{}
	_ Regressor = (*Ensemble)(nil)
	_ Regressor = (*Forest)(nil)
)

// Fit fits gradient-boosted trees with options o; see FitGBRT.
func (o GBRTOptions) Fit(x []float64, nFeatures int, y []float64) (Regressor, error) {
	e, err := FitGBRT(x, nFeatures, y, o)
	if err != nil {
		return nil, err // not a nil *Ensemble in a non-nil interface
	}
	return e, nil
}

// Fit fits a random forest with options o; see FitForest.
func (o ForestOptions) Fit(x []float64, nFeatures int, y []float64) (Regressor, error) {
	f, err := FitForest(x, nFeatures, y, o)
	if err != nil {
		return nil, err
	}
	return f, nil
}
