# cpanfile is the one list of prerequisites: every module lib/ and
# script/ load that neither Perl 5.24 nor Kamado itself provides is in it
# (required, or recommended for an optional part), every one it requires
# is loaded somewhere, and Makefile.PL's (MYMETA.json, written by
# ./dev/build) are the same.
use strict;
use warnings;
use Test::More;
use File::Find ();
use JSON::PP ();
use Module::CoreList ();
use Module::CPANfile ();

my $prereqs = Module::CPANfile->load('cpanfile')->prereqs;
my %required = %{ $prereqs->requirements_for('runtime', 'requires')->as_string_hash };
my %recommended = %{ $prereqs->requirements_for('runtime', 'recommends')->as_string_hash };
delete $required{perl};

my (%used, %ours);
File::Find::find(
    {
        no_chdir => 1,
        wanted => sub {
            return unless -f && (/\.pm\z/ || m{\Ascript/});
            (my $own = $_) =~ s{\Alib/}{};
            $ours{ $own =~ s{/}{::}gr =~ s/\.pm\z//r } = 1 if /\.pm\z/;
            open my $fh, '<', $_ or die "$_: $!";
            while (<$fh>) {
                last if /^__END__/;
                $used{$1}{$File::Find::name} = 1 if /^\s*(?:use|require)\s+([A-Z]\w*(?:::\w+)*)/;
            }
        }
    },
    'lib',
    'script'
);

# a distribution provides its modules: Plack is required for Plack::Util
sub provided {
    my ($m) = @_;
    return 1 if Module::CoreList::is_core($m, undef, '5.024') || $ours{$m};
    return grep { $m eq $_ || index($m, "${_}::") == 0 } keys %required, keys %recommended;
}
my @missing = map { "$_ (" . join(', ', sort keys %{ $used{$_} }) . ')' } grep { !provided($_) } sort keys %used;
is_deeply \@missing, [], 'every module loaded is in cpanfile' or diag explain \@missing;

# a distribution is used when one of its modules is
my @unused = grep { my $r = $_; !grep { $_ eq $r || index($_, "${r}::") == 0 } keys %used } sort keys %required;
is_deeply \@unused, [], 'every module cpanfile requires is loaded';

# (./dev/build writes MYMETA.json)
ok -e 'MYMETA.json', 'MYMETA.json, written by Makefile.PL' or BAIL_OUT('run ./dev/build first');
open my $fh, '<', 'MYMETA.json' or die $!;
my $meta = JSON::PP->new->decode(do { local $/; <$fh> });
my %meta_runtime = %{ $meta->{prereqs}{runtime}{requires} };
delete $meta_runtime{perl};
is_deeply \%meta_runtime, \%required, "Makefile.PL's runtime prerequisites are cpanfile's";
is_deeply $meta->{prereqs}{test}{requires}, $prereqs->requirements_for('test', 'requires')->as_string_hash,
    'and its test prerequisites';
done_testing;
