import './lesson/define';
