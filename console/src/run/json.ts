import { defaultStyles } from 'react-json-view-lite';
import 'react-json-view-lite/dist/index.css';

/** Open the first two levels: enough to read most arguments and results without clicking. */
export const collapseDeep = (level: number) => level < 2;

export const jsonStyles = defaultStyles;
