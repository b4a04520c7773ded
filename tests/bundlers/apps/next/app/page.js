import Planner from './planner.js';

export default function Page() {
  return (
    <main>
      <Planner />
    </main>
  );
}
