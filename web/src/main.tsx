import { render } from 'preact';
import { App } from './app.js';
import { adoptTokenFromFragment } from './auth.js';
import './styles.css';

adoptTokenFromFragment();
render(<App />, document.getElementById('app')!);
