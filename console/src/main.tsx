import { render } from 'preact';
import { App, warmUp } from './app';
import { applyTheme } from './prefs';
import './styles.css';

warmUp();
applyTheme();
const root = document.getElementById('app');
if (root) render(<App />, root);
